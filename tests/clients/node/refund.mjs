// A partial refund of a succeeded charge, the charge after it, and the charge's refunds.
//   node refund.mjs CHARGE_ID AMOUNT
import Congopay from "congopay";

const client = new Congopay(); // CONGOPAY_API_KEY and CONGOPAY_BASE_URL
const [chargeId, amount] = process.argv.slice(2);
const refund = await client.refunds.create(chargeId, { amount: Number(amount) });
const charge = await client.charges.retrieve(chargeId);
const refunds = [];
for await (const each of client.refunds.list(chargeId)) refunds.push(each.id);
console.log(JSON.stringify({ refund, charge, refunds }));
