/**
 * Webhook deliveries verified as the Standard Webhooks specification says
 * (https://www.standardwebhooks.com): an HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"
 * with the endpoint's `whsec_…` secret, a timestamp within five minutes of now.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

import { CongopayError, WebhookVerificationError } from "./errors.js";
import type { Event } from "./generated.js";

/** A delivery's headers as a framework gives them: a fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

const TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = "whsec_";

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  const plain = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(plain).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : plain[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

function key(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = Buffer.from(encoded, "base64");
  if (!encoded || bytes.length === 0) {
    throw new CongopayError("The webhook secret is empty: give the whsec_… secret of your endpoint.");
  }
  return bytes;
}

function bytes(body: string | Uint8Array): Buffer {
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookVerificationError(
    "The body must be the raw body as received (a string or bytes), not a parsed object.",
  );
}

export class Webhooks {
  /**
   * The event a delivery carries, once its signature and timestamp are verified; else a
   * `WebhookVerificationError`. Give it the raw body exactly as received (before any JSON
   * parsing: re-encoded JSON no longer matches its signature), the request's headers and your
   * endpoint's secret (`whsec_…`).
   */
  unwrap(body: string | Uint8Array, headers: WebhookHeaders, secret: string): Event {
    const payload = bytes(body);
    const id = header(headers, "webhook-id");
    const timestamp = header(headers, "webhook-timestamp");
    const signatures = header(headers, "webhook-signature");
    if (!id || !timestamp || !signatures) {
      throw new WebhookVerificationError(
        "Missing required headers: webhook-id, webhook-timestamp and webhook-signature.",
      );
    }
    if (!/^\d+$/.test(timestamp)) {
      throw new WebhookVerificationError("Invalid webhook-timestamp: not a number of seconds.");
    }
    const now = Math.floor(Date.now() / 1000);
    const sent = Number(timestamp);
    if (now - sent > TOLERANCE_SECONDS) {
      throw new WebhookVerificationError("Message timestamp too old.");
    }
    if (sent - now > TOLERANCE_SECONDS) {
      throw new WebhookVerificationError("Message timestamp too new.");
    }
    const expected = this.digest(key(secret), id, timestamp, payload);
    // Several signatures while a secret is rotated; one that matches is enough.
    for (const candidate of signatures.split(" ")) {
      const comma = candidate.indexOf(",");
      if (comma < 0 || candidate.slice(0, comma) !== "v1") continue;
      const given = Buffer.from(candidate.slice(comma + 1), "base64");
      if (given.length === expected.length && timingSafeEqual(given, expected)) {
        try {
          return JSON.parse(payload.toString("utf8")) as Event;
        } catch (cause) {
          throw new WebhookVerificationError("The delivery's body is not JSON.", { cause });
        }
      }
    }
    throw new WebhookVerificationError("No matching signature found.");
  }

  /**
   * The `webhook-signature` header of a body: to test your own handler with deliveries of your
   * making. `timestamp` in seconds since 1970, or a Date.
   */
  sign(id: string, timestamp: number | Date, body: string | Uint8Array, secret: string): string {
    const seconds =
      timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : Math.floor(timestamp);
    return `v1,${this.digest(key(secret), id, String(seconds), bytes(body)).toString("base64")}`;
  }

  private digest(secret: Buffer, id: string, timestamp: string, payload: Buffer): Buffer {
    return createHmac("sha256", secret)
      .update(`${id}.${timestamp}.`, "utf8")
      .update(payload)
      .digest();
  }
}
