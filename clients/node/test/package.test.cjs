// The package as CommonJS code requires it: the client class itself, with the errors on it.
const assert = require("node:assert/strict");
const { test } = require("node:test");

const Congopay = require("..");

test("require gives the client class, its errors and the named exports", () => {
  const client = new Congopay({ apiKey: "sk_test_unused", baseURL: "http://127.0.0.1:9/" });
  assert.equal(client.baseURL, "http://127.0.0.1:9");
  assert.equal(typeof client.charges.create, "function");
  assert.equal(typeof client.checkout.sessions.expire, "function");
  assert.equal(typeof client.webhooks.unwrap, "function");
  assert.equal(Congopay.default, Congopay);
  assert.equal(Congopay.APIError, require("..").APIError);
  assert.ok(new Congopay.InvalidRequestError("x") instanceof Congopay.APIError);
  // The key is private: logging the client never shows it.
  assert.ok(!JSON.stringify(client).includes("sk_test_unused"));
});

test("a client without a key says how to give one", () => {
  const saved = process.env.CONGOPAY_API_KEY;
  delete process.env.CONGOPAY_API_KEY;
  try {
    assert.throws(() => new Congopay(), /CONGOPAY_API_KEY/);
  } finally {
    if (saved !== undefined) process.env.CONGOPAY_API_KEY = saved;
  }
});
