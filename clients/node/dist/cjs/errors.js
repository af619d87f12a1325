"use strict";
/** What the library throws: the service's refusals, lost connections and bad webhooks. */
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhookVerificationError = exports.APIConnectionTimeoutError = exports.APIConnectionError = exports.APIServerError = exports.RateLimitError = exports.IdempotencyError = exports.PermissionError = exports.AuthenticationError = exports.InvalidRequestError = exports.APIError = exports.CongopayError = void 0;
/** Every error of this library. */
class CongopayError extends Error {
    name = "CongopayError";
}
exports.CongopayError = CongopayError;
/**
 * The service refused the request (`status` is its HTTP status), or no answer came
 * (`APIConnectionError`, without a status). Branch on `code`; show `message`; quote `requestId`
 * to support.
 */
class APIError extends CongopayError {
    name = "APIError";
    /** The HTTP status; undefined when no answer came. */
    status;
    /** invalid_request_error, authentication_error, permission_error, idempotency_error, rate_limit_error or api_error. */
    type;
    /** A stable code to branch on: parameter_missing, amount_invalid, resource_missing, … */
    code;
    /** The parameter or header at fault, when there is one. */
    param;
    /** The request's id (the `Request-Id` header), to quote to support. */
    requestId;
    /** The answer's headers. */
    headers;
    /** The answer's body, parsed when it is JSON. */
    body;
    constructor(message, fields = {}) {
        super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
        this.status = fields.status;
        this.type = fields.type;
        this.code = fields.code;
        this.param = fields.param;
        this.requestId = fields.requestId;
        this.headers = fields.headers;
        this.body = fields.body;
    }
    /** The error an answer of the service carries, as the subclass of its type. */
    static fromResponse(status, headers, text) {
        let body = text;
        try {
            body = JSON.parse(text);
        }
        catch {
            // Not JSON (a proxy's page): the status says enough.
        }
        const detail = body !== null && typeof body === "object" && "error" in body && typeof body.error === "object"
            ? body.error
            : {};
        const type = typeof detail.type === "string" ? detail.type : undefined;
        const message = typeof detail.message === "string" ? detail.message : `The service answered HTTP ${status}.`;
        const requestId = headers.get("request-id") ??
            (typeof detail.request_id === "string" ? detail.request_id : undefined);
        const fields = {
            status,
            type,
            code: typeof detail.code === "string" ? detail.code : undefined,
            param: typeof detail.param === "string" || detail.param === null ? detail.param : undefined,
            requestId,
            headers,
            body,
        };
        const Class = (type && ERRORS_BY_TYPE[type]) || (status >= 500 ? APIServerError : APIError);
        return new Class(message, fields);
    }
}
exports.APIError = APIError;
/** 400 or 404: a parameter, an amount, a state that does not allow it, an unknown object. */
class InvalidRequestError extends APIError {
    name = "InvalidRequestError";
}
exports.InvalidRequestError = InvalidRequestError;
/** 401: the API key is missing, unknown or revoked. */
class AuthenticationError extends APIError {
    name = "AuthenticationError";
}
exports.AuthenticationError = AuthenticationError;
/** 403: the account may not do this (live mode not approved, card rail off). */
class PermissionError extends APIError {
    name = "PermissionError";
}
exports.PermissionError = PermissionError;
/** 400 or 409: an idempotency key reused for another request, or still running. */
class IdempotencyError extends APIError {
    name = "IdempotencyError";
}
exports.IdempotencyError = IdempotencyError;
/** 429: too many requests; the answer's `Retry-After` says when to come back. */
class RateLimitError extends APIError {
    name = "RateLimitError";
}
exports.RateLimitError = RateLimitError;
/** 5xx: the service or an operator behind it failed; the request may be retried as it was. */
class APIServerError extends APIError {
    name = "APIServerError";
}
exports.APIServerError = APIServerError;
/** No answer came: the connection failed or was lost. The request may be retried as it was. */
class APIConnectionError extends APIError {
    name = "APIConnectionError";
}
exports.APIConnectionError = APIConnectionError;
/** No answer came within the timeout. */
class APIConnectionTimeoutError extends APIConnectionError {
    name = "APIConnectionTimeoutError";
}
exports.APIConnectionTimeoutError = APIConnectionTimeoutError;
/** A webhook delivery that is not proven to come from the service, or is too old. */
class WebhookVerificationError extends CongopayError {
    name = "WebhookVerificationError";
}
exports.WebhookVerificationError = WebhookVerificationError;
const ERRORS_BY_TYPE = {
    invalid_request_error: InvalidRequestError,
    authentication_error: AuthenticationError,
    permission_error: PermissionError,
    idempotency_error: IdempotencyError,
    rate_limit_error: RateLimitError,
    api_error: APIServerError,
};
