import { APIError } from "./errors.js";
export interface ClientOptions {
    /** Your secret key, `sk_test_…` or `sk_live_…`; default: the `CONGOPAY_API_KEY` environment variable. */
    apiKey?: string;
    /** The service's address; default: `CONGOPAY_BASE_URL`, else `http://127.0.0.1:8000` (`make run`). */
    baseURL?: string;
    /** Retries after the first attempt of a request that may succeed on another try (default 2). */
    maxRetries?: number;
    /** Milliseconds an attempt may take, the answer's body included (default 30 000). */
    timeout?: number;
    /** Headers sent with every request (`Accept-Language: fr` for errors in French). */
    headers?: Record<string, string>;
}
/** Per request: the same as the client's, and the idempotency key of a POST. */
export interface RequestOptions {
    /** Sent as `Idempotency-Key` on a POST (default: a new UUID v4, reused by the retries). */
    idempotencyKey?: string;
    maxRetries?: number;
    timeout?: number;
    headers?: Record<string, string>;
}
export type Query = object;
export interface RequestSpec {
    method: "GET" | "POST" | "DELETE";
    path: string;
    query?: Query | undefined;
    body?: object | undefined;
    /** The answer is text (a CSV statement), not JSON. */
    text?: boolean;
}
export interface Page<Item> {
    object: "list";
    data: Item[];
    has_more: boolean;
    limit: number;
    offset: number;
    url: string;
}
/** Exponential backoff, with jitter so that many clients do not come back together. */
export declare function backoff(attempt: number): number;
/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined. */
export declare function retryAfter(headers: Headers | undefined): number | undefined;
/**
 * How long to wait before trying `error`'s request again, or undefined when it must not be:
 * lost connections and timeouts, 409 idempotency_key_in_use, 429 and 5xx may succeed on another
 * try (the idempotency key makes a POST safe to send again); another 4xx never does.
 */
export declare function retryDelay(error: APIError, attempt: number): number | undefined;
export declare class APIClient {
    #private;
    readonly baseURL: string;
    readonly maxRetries: number;
    readonly timeout: number;
    constructor(options?: ClientOptions);
    /** One request, retried as `retryDelay` allows; the answer's JSON (or text). */
    request<T>(spec: RequestSpec, options?: RequestOptions): Promise<T>;
    /** The items of every page of a list, fetched as they are needed. */
    list<Item, P extends Page<Item> = Page<Item>>(spec: {
        path: string;
        query?: Query | undefined;
        keyset: boolean;
    }, options?: RequestOptions): PagePromise<Item, P>;
    private url;
    private attempt;
}
/**
 * A list request: `await` it for its first page, or iterate it with `for await` for every item
 * of every page. Nothing is fetched until one or the other.
 */
export declare class PagePromise<Item, P extends Page<Item> = Page<Item>> implements PromiseLike<P>, AsyncIterable<Item> {
    #private;
    constructor(fetchPage: (query: Query) => Promise<P>, query: Query, keyset: boolean);
    then<A = P, B = never>(onFulfilled?: ((page: P) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B>;
    [Symbol.asyncIterator](): AsyncIterator<Item>;
}
