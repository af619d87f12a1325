// A first payment: 2 500.00 CDF from a Vodacom M-Pesa customer whose number the sandbox
// approves, followed by retrieving it until it is no longer pending.
//   node first_payment.mjs ORDER
import Congopay from "congopay";

const client = new Congopay({
  apiKey: process.env.CONGOPAY_API_KEY,
  baseURL: process.env.CONGOPAY_BASE_URL,
});
const created = await client.charges.create({
  amount: 250000,
  currency: "CDF",
  phone: "+243812345678",
  network: "VODACOM_MPESA",
  metadata: { order: process.argv[2] },
});
let charge = await client.charges.retrieve(created.id);
const deadline = Date.now() + 120_000; // the sandbox answers within seconds
while (charge.status === "pending" && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  charge = await client.charges.retrieve(created.id);
}
console.log(JSON.stringify({ created, charge }));
