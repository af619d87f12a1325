// One charge for an order, or the error that refused it, with every field of the error.
//   node create_charge.mjs ORDER [AMOUNT]
import Congopay from "congopay";

const client = new Congopay();
const [order, amount = "250000"] = process.argv.slice(2);
try {
  const charge = await client.charges.create({
    amount: Number(amount),
    currency: "CDF",
    phone: "+243812345678",
    network: "VODACOM_MPESA",
    metadata: { order },
  });
  console.log(JSON.stringify({ charge }));
} catch (error) {
  if (!(error instanceof Congopay.APIError)) throw error;
  const { name, status, type, code, param, message, requestId } = error;
  console.log(JSON.stringify({ error: { name, status, type, code, param, message, requestId } }));
}
