/**
 * The Congopay client: `new Congopay({ apiKey, baseURL, maxRetries, timeout })`, then
 * `client.charges.create({…})`, `client.refunds.create(chargeId, {…})`,
 * `for await (const charge of client.charges.list())`, `client.webhooks.unwrap(body, headers, secret)`.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIServerError, AuthenticationError, CongopayError, IdempotencyError, InvalidRequestError, PermissionError, RateLimitError, WebhookVerificationError, } from "./errors.js";
import { Resources } from "./generated.js";
import { Webhooks } from "./webhooks.js";
export class Congopay extends Resources {
    /** Verifies webhook deliveries: `unwrap(body, headers, secret)`. */
    webhooks = new Webhooks();
    constructor(options = {}) {
        super(options);
    }
    static Congopay = Congopay;
    static CongopayError = CongopayError;
    static APIError = APIError;
    static APIConnectionError = APIConnectionError;
    static APIConnectionTimeoutError = APIConnectionTimeoutError;
    static APIServerError = APIServerError;
    static AuthenticationError = AuthenticationError;
    static IdempotencyError = IdempotencyError;
    static InvalidRequestError = InvalidRequestError;
    static PermissionError = PermissionError;
    static RateLimitError = RateLimitError;
    static WebhookVerificationError = WebhookVerificationError;
}
export default Congopay;
export * from "./errors.js";
export * from "./generated.js";
export { APIClient, PagePromise } from "./core.js";
export { Webhooks } from "./webhooks.js";
export { VERSION } from "./version.js";
