// A merchant's webhook endpoint: an HTTP server on 127.0.0.1:PORT that verifies each delivery
// from its raw body with client.webhooks.unwrap, answers 204 (or 400 when it is refused), and
// records what it got as a JSON line in the file CONGOPAY_RECEIVED.
//   PORT=… CONGOPAY_WEBHOOK_SECRET=whsec_… CONGOPAY_RECEIVED=… node receiver.mjs
import { appendFileSync } from "node:fs";
import http from "node:http";

import Congopay from "congopay";

const client = new Congopay();
const secret = process.env.CONGOPAY_WEBHOOK_SECRET;
const record = (line) => appendFileSync(process.env.CONGOPAY_RECEIVED, `${JSON.stringify(line)}\n`);

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks); // raw: the signature is over these bytes
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => name.startsWith("webhook-")),
    );
    try {
      const event = client.webhooks.unwrap(body, request.headers, secret);
      record({ verified: event, body: body.toString("utf8"), headers });
      response.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof Congopay.WebhookVerificationError)) throw error;
      record({ refused: error.message, headers });
      response.writeHead(400).end();
    }
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => record({ listening: true }));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
