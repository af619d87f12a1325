// client.webhooks.unwrap against the test vectors of the Standard Webhooks reference libraries:
// github.com/standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts and
// libraries/php/tests/WebhookTest.php at commit b2fa7b8719fb75d326b591077f5d1b385cfcdfae
// (their secret, message id, payload and the signature of the "sign function works" case).
// Run with `npm test`; the deliveries of the real service are verified in tests/clients/.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";

import Congopay, { CongopayError, WebhookVerificationError } from "../dist/esm/index.js";

const MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const PAYLOAD = '{"test": 2432232314}';
const SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const TOLERANCE_MS = 5 * 60 * 1000;

const webhooks = new Congopay({ apiKey: "sk_test_unused" }).webhooks;

// The reference tests' TestPayload: a delivery signed at `timestamp` (milliseconds).
function delivery(timestamp = Date.now()) {
  const seconds = Math.floor(timestamp / 1000);
  const signature = createHmac("sha256", Buffer.from(SECRET, "base64"))
    .update(`${MSG_ID}.${seconds}.${PAYLOAD}`)
    .digest("base64");
  return {
    payload: PAYLOAD,
    header: {
      "webhook-id": MSG_ID,
      "webhook-signature": `v1,${signature}`,
      "webhook-timestamp": String(seconds),
    },
  };
}

test("empty key raises error", () => {
  const { payload, header } = delivery();
  for (const secret of ["", "whsec_"]) {
    assert.throws(() => webhooks.unwrap(payload, header, secret), CongopayError);
  }
});

for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
  test(`missing ${name} raises error`, () => {
    const { payload, header } = delivery();
    delete header[name];
    assert.throws(() => webhooks.unwrap(payload, header, SECRET), WebhookVerificationError);
  });
}

test("invalid timestamp throws error", () => {
  const { payload, header } = delivery();
  header["webhook-timestamp"] = "hello";
  assert.throws(() => webhooks.unwrap(payload, header, SECRET), WebhookVerificationError);
});

test("invalid signature throws error", () => {
  const { payload, header } = delivery();
  header["webhook-signature"] = "v1,dawfeoifkpqwoekfpqoekf";
  assert.throws(() => webhooks.unwrap(payload, header, SECRET), WebhookVerificationError);
});

test("partial signature throws error", () => {
  const { payload, header } = delivery();
  const whole = header["webhook-signature"];
  for (const partial of [whole.slice(0, 8), "v1,"]) {
    header["webhook-signature"] = partial;
    assert.throws(() => webhooks.unwrap(payload, header, SECRET), WebhookVerificationError);
  }
});

test("valid signature is valid and returns valid json", () => {
  const { payload, header } = delivery();
  assert.deepEqual(webhooks.unwrap(payload, header, SECRET), { test: 2432232314 });
});

test("valid signature of the raw bytes, with headers in any case or as fetch Headers", () => {
  const { payload, header } = delivery();
  const shouting = Object.fromEntries(Object.entries(header).map(([k, v]) => [k.toUpperCase(), v]));
  assert.deepEqual(webhooks.unwrap(Buffer.from(payload), shouting, SECRET), { test: 2432232314 });
  assert.deepEqual(webhooks.unwrap(payload, new Headers(header), SECRET), { test: 2432232314 });
});

test("a body changed after signing throws error", () => {
  const { header } = delivery();
  assert.throws(
    () => webhooks.unwrap('{"test": 2432232315}', header, SECRET),
    WebhookVerificationError,
  );
});

test("a parsed body throws error: the raw body is what was signed", () => {
  const { header } = delivery();
  assert.throws(
    () => webhooks.unwrap(JSON.parse(PAYLOAD), header, SECRET),
    WebhookVerificationError,
  );
});

test("old timestamp fails", () => {
  const { payload, header } = delivery(Date.now() - TOLERANCE_MS - 1000);
  assert.throws(() => webhooks.unwrap(payload, header, SECRET), WebhookVerificationError);
});

test("new timestamp fails", () => {
  const { payload, header } = delivery(Date.now() + TOLERANCE_MS + 1000);
  assert.throws(() => webhooks.unwrap(payload, header, SECRET), WebhookVerificationError);
});

test("multi sig payload is valid", () => {
  const { payload, header } = delivery();
  header["webhook-signature"] = [
    "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
    "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
    header["webhook-signature"], // the valid signature
    "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
  ].join(" ");
  assert.deepEqual(webhooks.unwrap(payload, header, SECRET), { test: 2432232314 });
});

test("verification works with and without signature prefix", () => {
  const { payload, header } = delivery();
  assert.deepEqual(webhooks.unwrap(payload, header, SECRET), { test: 2432232314 });
  assert.deepEqual(webhooks.unwrap(payload, header, `whsec_${SECRET}`), { test: 2432232314 });
});

test("sign function works", () => {
  const signature = webhooks.sign(
    MSG_ID,
    new Date(1614265330 * 1000),
    PAYLOAD,
    `whsec_${SECRET}`,
  );
  assert.equal(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
});
