"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.VERSION = exports.Webhooks = exports.PagePromise = exports.APIClient = exports.Congopay = void 0;
/**
 * The Congopay client: `new Congopay({ apiKey, baseURL, maxRetries, timeout })`, then
 * `client.charges.create({…})`, `client.refunds.create(chargeId, {…})`,
 * `for await (const charge of client.charges.list())`, `client.webhooks.unwrap(body, headers, secret)`.
 */
const errors_js_1 = require("./errors.js");
const generated_js_1 = require("./generated.js");
const webhooks_js_1 = require("./webhooks.js");
class Congopay extends generated_js_1.Resources {
    /** Verifies webhook deliveries: `unwrap(body, headers, secret)`. */
    webhooks = new webhooks_js_1.Webhooks();
    constructor(options = {}) {
        super(options);
    }
    static Congopay = Congopay;
    static CongopayError = errors_js_1.CongopayError;
    static APIError = errors_js_1.APIError;
    static APIConnectionError = errors_js_1.APIConnectionError;
    static APIConnectionTimeoutError = errors_js_1.APIConnectionTimeoutError;
    static APIServerError = errors_js_1.APIServerError;
    static AuthenticationError = errors_js_1.AuthenticationError;
    static IdempotencyError = errors_js_1.IdempotencyError;
    static InvalidRequestError = errors_js_1.InvalidRequestError;
    static PermissionError = errors_js_1.PermissionError;
    static RateLimitError = errors_js_1.RateLimitError;
    static WebhookVerificationError = errors_js_1.WebhookVerificationError;
}
exports.Congopay = Congopay;
exports.default = Congopay;
__exportStar(require("./errors.js"), exports);
__exportStar(require("./generated.js"), exports);
var core_js_1 = require("./core.js");
Object.defineProperty(exports, "APIClient", { enumerable: true, get: function () { return core_js_1.APIClient; } });
Object.defineProperty(exports, "PagePromise", { enumerable: true, get: function () { return core_js_1.PagePromise; } });
var webhooks_js_2 = require("./webhooks.js");
Object.defineProperty(exports, "Webhooks", { enumerable: true, get: function () { return webhooks_js_2.Webhooks; } });
var version_js_1 = require("./version.js");
Object.defineProperty(exports, "VERSION", { enumerable: true, get: function () { return version_js_1.VERSION; } });
module.exports = Object.assign(exports.default, exports);
