/**
 * The Congopay client: `new Congopay({ apiKey, baseURL, maxRetries, timeout })`, then
 * `client.charges.create({…})`, `client.refunds.create(chargeId, {…})`,
 * `for await (const charge of client.charges.list())`, `client.webhooks.unwrap(body, headers, secret)`.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIServerError, AuthenticationError, CongopayError, IdempotencyError, InvalidRequestError, PermissionError, RateLimitError, WebhookVerificationError } from "./errors.js";
import type { ClientOptions } from "./core.js";
import { Resources } from "./generated.js";
import { Webhooks } from "./webhooks.js";
export declare class Congopay extends Resources {
    /** Verifies webhook deliveries: `unwrap(body, headers, secret)`. */
    readonly webhooks: Webhooks;
    constructor(options?: ClientOptions);
    static readonly Congopay: typeof Congopay;
    static readonly CongopayError: typeof CongopayError;
    static readonly APIError: typeof APIError;
    static readonly APIConnectionError: typeof APIConnectionError;
    static readonly APIConnectionTimeoutError: typeof APIConnectionTimeoutError;
    static readonly APIServerError: typeof APIServerError;
    static readonly AuthenticationError: typeof AuthenticationError;
    static readonly IdempotencyError: typeof IdempotencyError;
    static readonly InvalidRequestError: typeof InvalidRequestError;
    static readonly PermissionError: typeof PermissionError;
    static readonly RateLimitError: typeof RateLimitError;
    static readonly WebhookVerificationError: typeof WebhookVerificationError;
}
export default Congopay;
export * from "./errors.js";
export * from "./generated.js";
export { APIClient, PagePromise } from "./core.js";
export type { ClientOptions, Page, RequestOptions } from "./core.js";
export { Webhooks } from "./webhooks.js";
export type { WebhookHeaders } from "./webhooks.js";
export { VERSION } from "./version.js";
