/** What the library throws: the service's refusals, lost connections and bad webhooks. */
/** Every error of this library. */
export declare class CongopayError extends Error {
    name: string;
}
/**
 * The service refused the request (`status` is its HTTP status), or no answer came
 * (`APIConnectionError`, without a status). Branch on `code`; show `message`; quote `requestId`
 * to support.
 */
export declare class APIError extends CongopayError {
    name: string;
    /** The HTTP status; undefined when no answer came. */
    readonly status: number | undefined;
    /** invalid_request_error, authentication_error, permission_error, idempotency_error, rate_limit_error or api_error. */
    readonly type: string | undefined;
    /** A stable code to branch on: parameter_missing, amount_invalid, resource_missing, … */
    readonly code: string | undefined;
    /** The parameter or header at fault, when there is one. */
    readonly param: string | null | undefined;
    /** The request's id (the `Request-Id` header), to quote to support. */
    readonly requestId: string | undefined;
    /** The answer's headers. */
    readonly headers: Headers | undefined;
    /** The answer's body, parsed when it is JSON. */
    readonly body: unknown;
    constructor(message: string, fields?: {
        status?: number;
        type?: string;
        code?: string;
        param?: string | null;
        requestId?: string;
        headers?: Headers;
        body?: unknown;
        cause?: unknown;
    });
    /** The error an answer of the service carries, as the subclass of its type. */
    static fromResponse(status: number, headers: Headers, text: string): APIError;
}
/** 400 or 404: a parameter, an amount, a state that does not allow it, an unknown object. */
export declare class InvalidRequestError extends APIError {
    name: string;
}
/** 401: the API key is missing, unknown or revoked. */
export declare class AuthenticationError extends APIError {
    name: string;
}
/** 403: the account may not do this (live mode not approved, card rail off). */
export declare class PermissionError extends APIError {
    name: string;
}
/** 400 or 409: an idempotency key reused for another request, or still running. */
export declare class IdempotencyError extends APIError {
    name: string;
}
/** 429: too many requests; the answer's `Retry-After` says when to come back. */
export declare class RateLimitError extends APIError {
    name: string;
}
/** 5xx: the service or an operator behind it failed; the request may be retried as it was. */
export declare class APIServerError extends APIError {
    name: string;
}
/** No answer came: the connection failed or was lost. The request may be retried as it was. */
export declare class APIConnectionError extends APIError {
    name: string;
}
/** No answer came within the timeout. */
export declare class APIConnectionTimeoutError extends APIConnectionError {
    name: string;
}
/** A webhook delivery that is not proven to come from the service, or is too old. */
export declare class WebhookVerificationError extends CongopayError {
    name: string;
}
