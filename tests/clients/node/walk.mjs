// Every charge, walked LIMIT at a time; and the first page alone.
//   node walk.mjs LIMIT
import Congopay from "congopay";

const client = new Congopay();
const limit = Number(process.argv[2]);
const firstPage = await client.charges.list({ limit });
const ids = [];
for await (const charge of client.charges.list({ limit })) ids.push(charge.id);
console.log(JSON.stringify({ first_page: firstPage, ids }));
