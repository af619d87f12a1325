/** What the library throws: the service's refusals, lost connections and bad webhooks. */
/** Every error of this library. */
export class CongopayError extends Error {
    name = "CongopayError";
}
/**
 * The service refused the request (`status` is its HTTP status), or no answer came
 * (`APIConnectionError`, without a status). Branch on `code`; show `message`; quote `requestId`
 * to support.
 */
export class APIError extends CongopayError {
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
/** 400 or 404: a parameter, an amount, a state that does not allow it, an unknown object. */
export class InvalidRequestError extends APIError {
    name = "InvalidRequestError";
}
/** 401: the API key is missing, unknown or revoked. */
export class AuthenticationError extends APIError {
    name = "AuthenticationError";
}
/** 403: the account may not do this (live mode not approved, card rail off). */
export class PermissionError extends APIError {
    name = "PermissionError";
}
/** 400 or 409: an idempotency key reused for another request, or still running. */
export class IdempotencyError extends APIError {
    name = "IdempotencyError";
}
/** 429: too many requests; the answer's `Retry-After` says when to come back. */
export class RateLimitError extends APIError {
    name = "RateLimitError";
}
/** 5xx: the service or an operator behind it failed; the request may be retried as it was. */
export class APIServerError extends APIError {
    name = "APIServerError";
}
/** No answer came: the connection failed or was lost. The request may be retried as it was. */
export class APIConnectionError extends APIError {
    name = "APIConnectionError";
}
/** No answer came within the timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
    name = "APIConnectionTimeoutError";
}
/** A webhook delivery that is not proven to come from the service, or is too old. */
export class WebhookVerificationError extends CongopayError {
    name = "WebhookVerificationError";
}
const ERRORS_BY_TYPE = {
    invalid_request_error: InvalidRequestError,
    authentication_error: AuthenticationError,
    permission_error: PermissionError,
    idempotency_error: IdempotencyError,
    rate_limit_error: RateLimitError,
    api_error: APIServerError,
};
