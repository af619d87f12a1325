/**
 * The Congopay client: `new Congopay({ apiKey, baseURL, maxRetries, timeout })`, then
 * `client.charges.create({…})`, `client.refunds.create(chargeId, {…})`,
 * `for await (const charge of client.charges.list())`, `client.webhooks.unwrap(body, headers, secret)`.
 */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIServerError,
  AuthenticationError,
  CongopayError,
  IdempotencyError,
  InvalidRequestError,
  PermissionError,
  RateLimitError,
  WebhookVerificationError,
} from "./errors.js";
import type { ClientOptions } from "./core.js";
import { Resources } from "./generated.js";
import { Webhooks } from "./webhooks.js";

export class Congopay extends Resources {
  /** Verifies webhook deliveries: `unwrap(body, headers, secret)`. */
  readonly webhooks: Webhooks = new Webhooks();

  constructor(options: ClientOptions = {}) {
    super(options);
  }

  static readonly Congopay = Congopay;
  static readonly CongopayError = CongopayError;
  static readonly APIError = APIError;
  static readonly APIConnectionError = APIConnectionError;
  static readonly APIConnectionTimeoutError = APIConnectionTimeoutError;
  static readonly APIServerError = APIServerError;
  static readonly AuthenticationError = AuthenticationError;
  static readonly IdempotencyError = IdempotencyError;
  static readonly InvalidRequestError = InvalidRequestError;
  static readonly PermissionError = PermissionError;
  static readonly RateLimitError = RateLimitError;
  static readonly WebhookVerificationError = WebhookVerificationError;
}

export default Congopay;
export * from "./errors.js";
export * from "./generated.js";
export { APIClient, PagePromise } from "./core.js";
export type { ClientOptions, Page, RequestOptions } from "./core.js";
export { Webhooks } from "./webhooks.js";
export type { WebhookHeaders } from "./webhooks.js";
export { VERSION } from "./version.js";
