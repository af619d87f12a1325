// The library's types as a TypeScript merchant meets them: compiled with `tsc --noEmit` by
// tests/clients/test_node_client.py. Each @ts-expect-error is a mistake the types must catch.
import Congopay from "congopay";
import type { Charge, ChargeCreated, Event, Refund, RefundList } from "congopay";

async function firstPayment(client: Congopay): Promise<Charge> {
  const created: ChargeCreated = await client.charges.create({
    amount: 250000,
    currency: "CDF",
    phone: "+243812345678",
    network: "VODACOM_MPESA",
  });
  // @ts-expect-error: amounts are integers in the smallest unit, never strings
  await client.charges.create({ amount: "2500", currency: "CDF" });
  // @ts-expect-error: CDF and USD only
  await client.charges.create({ amount: 1, currency: "EUR" });
  const refund: Refund = await client.refunds.create(created.id, { amount: 100000 });
  const page: RefundList = await client.refunds.list(created.id, { limit: 5 });
  for await (const each of client.refunds.list()) {
    const same: Refund = each;
    void same;
  }
  void refund;
  void page;
  return client.charges.retrieve(created.id);
}

function handle(client: Congopay, body: Buffer, headers: Record<string, string>): string {
  const event: Event = client.webhooks.unwrap(body, headers, "whsec_…");
  return event.type;
}

try {
  await firstPayment(new Congopay({ apiKey: "sk_test_…", maxRetries: 3, timeout: 10_000 }));
} catch (error) {
  if (error instanceof Congopay.APIError) {
    const fields: [number | undefined, string | undefined, string | undefined] = [
      error.status,
      error.code,
      error.requestId,
    ];
    void fields;
  }
}
void handle;
