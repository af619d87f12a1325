"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PagePromise = exports.APIClient = void 0;
exports.backoff = backoff;
exports.retryAfter = retryAfter;
exports.retryDelay = retryDelay;
/**
 * The transport every resource goes through: the key, JSON in and out, an idempotency key on
 * every POST that the retries reuse, retries with backoff on what may succeed on a second try,
 * and lists that walk every page.
 */
const node_crypto_1 = require("node:crypto");
const errors_js_1 = require("./errors.js");
const version_js_1 = require("./version.js");
const DEFAULT_BASE_URL = "http://127.0.0.1:8000";
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
/** A `Retry-After` longer than this is not waited for: the error is thrown at once. */
const LONGEST_RETRY_AFTER_MS = 60_000;
/** Exponential backoff, with jitter so that many clients do not come back together. */
function backoff(attempt) {
    const ceiling = Math.min(500 * 2 ** attempt, 8_000);
    return ceiling / 2 + Math.random() * (ceiling / 2);
}
/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined. */
function retryAfter(headers) {
    const value = headers?.get("retry-after");
    if (!value)
        return undefined;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim()) * 1000;
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
/**
 * How long to wait before trying `error`'s request again, or undefined when it must not be:
 * lost connections and timeouts, 409 idempotency_key_in_use, 429 and 5xx may succeed on another
 * try (the idempotency key makes a POST safe to send again); another 4xx never does.
 */
function retryDelay(error, attempt) {
    const status = error.status;
    const retryable = error instanceof errors_js_1.APIConnectionError ||
        status === 429 ||
        (status !== undefined && status >= 500) ||
        (status === 409 && error.code === "idempotency_key_in_use");
    if (!retryable)
        return undefined;
    const asked = retryAfter(error.headers);
    if (asked === undefined)
        return backoff(attempt);
    return asked <= LONGEST_RETRY_AFTER_MS ? asked : undefined;
}
function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}
function environment(name) {
    const value = typeof process === "undefined" ? undefined : process.env[name];
    return value ? value : undefined;
}
class APIClient {
    // Private, so that logging the client never shows the key.
    #apiKey;
    baseURL;
    maxRetries;
    timeout;
    #headers;
    constructor(options = {}) {
        const apiKey = options.apiKey ?? environment("CONGOPAY_API_KEY");
        if (!apiKey) {
            throw new errors_js_1.CongopayError("An API key is needed: new Congopay({ apiKey: 'sk_test_…' }), or CONGOPAY_API_KEY.");
        }
        this.#apiKey = apiKey;
        this.baseURL = (options.baseURL ?? environment("CONGOPAY_BASE_URL") ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
        this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
        this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
        this.#headers = { ...options.headers };
    }
    /** One request, retried as `retryDelay` allows; the answer's JSON (or text). */
    async request(spec, options = {}) {
        const url = this.url(spec.path, spec.query);
        const headers = {
            Accept: spec.text ? "text/csv, application/json" : "application/json",
            "User-Agent": `congopay-node/${version_js_1.VERSION} node/${typeof process === "undefined" ? "" : process.version}`,
            ...this.#headers,
            ...options.headers,
            Authorization: `Bearer ${this.#apiKey}`,
        };
        let payload;
        if (spec.body !== undefined) {
            headers["Content-Type"] = "application/json";
            payload = JSON.stringify(spec.body);
        }
        if (spec.method === "POST") {
            // One key for every attempt: a retry of a POST whose answer was lost gets the first
            // answer again instead of doing the thing twice.
            headers["Idempotency-Key"] = options.idempotencyKey ?? (0, node_crypto_1.randomUUID)();
        }
        const maxRetries = options.maxRetries ?? this.maxRetries;
        const timeout = options.timeout ?? this.timeout;
        for (let attempt = 0;; attempt++) {
            let error;
            try {
                const answer = await this.attempt(url, spec.method, headers, payload, timeout);
                if (answer.ok) {
                    return (spec.text ? answer.text : answer.text ? JSON.parse(answer.text) : undefined);
                }
                error = errors_js_1.APIError.fromResponse(answer.status, answer.headers, answer.text);
            }
            catch (caught) {
                if (!(caught instanceof errors_js_1.APIConnectionError))
                    throw caught;
                error = caught;
            }
            const wait = attempt < maxRetries ? retryDelay(error, attempt) : undefined;
            if (wait === undefined)
                throw error;
            await sleep(wait);
        }
    }
    /** The items of every page of a list, fetched as they are needed. */
    list(spec, options) {
        return new PagePromise((query) => this.request({ method: "GET", path: spec.path, query }, options), spec.query ?? {}, spec.keyset);
    }
    url(path, query) {
        const url = new URL(this.baseURL + path);
        for (const [name, value] of Object.entries(query ?? {})) {
            if (value === undefined || value === null)
                continue;
            url.searchParams.set(name, String(value));
        }
        return url.toString();
    }
    async attempt(url, method, headers, body, timeout) {
        const signal = AbortSignal.timeout(timeout);
        try {
            const response = await fetch(url, { method, headers, body, signal, redirect: "manual" });
            // The body is read under the same deadline: an answer cut off midway is a lost answer.
            const text = await response.text();
            return { ok: response.ok, status: response.status, headers: response.headers, text };
        }
        catch (cause) {
            if (signal.aborted) {
                throw new errors_js_1.APIConnectionTimeoutError(`No answer from ${this.baseURL} within ${timeout} ms.`, {
                    cause,
                });
            }
            throw new errors_js_1.APIConnectionError(`No answer from ${this.baseURL}: ${describe(cause)}.`, { cause });
        }
    }
}
exports.APIClient = APIClient;
function describe(error) {
    if (error instanceof Error) {
        const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
        return `${error.message}${cause}`;
    }
    return String(error);
}
/**
 * A list request: `await` it for its first page, or iterate it with `for await` for every item
 * of every page. Nothing is fetched until one or the other.
 */
class PagePromise {
    #fetch;
    #query;
    #keyset;
    #first;
    constructor(fetchPage, query, keyset) {
        this.#fetch = fetchPage;
        this.#query = query;
        this.#keyset = keyset;
    }
    then(onFulfilled, onRejected) {
        this.#first ??= this.#fetch(this.#query);
        return this.#first.then(onFulfilled, onRejected);
    }
    async *[Symbol.asyncIterator]() {
        let query = { ...this.#query };
        for (;;) {
            const page = await this.#fetch(query);
            for (const item of page.data)
                yield item;
            if (!page.has_more || page.data.length === 0)
                return;
            if (this.#keyset) {
                // The next page starts after the last item seen: what arrives meanwhile is neither
                // repeated nor skipped.
                const last = page.data[page.data.length - 1];
                query = { ...query, starting_after: last.id };
                delete query.offset;
            }
            else {
                query = { ...query, offset: page.offset + page.data.length };
            }
        }
    }
}
exports.PagePromise = PagePromise;
