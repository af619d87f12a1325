/**
 * The transport every resource goes through: the key, JSON in and out, an idempotency key on
 * every POST that the retries reuse, retries with backoff on what may succeed on a second try,
 * and lists that walk every page.
 */
import { randomUUID } from "node:crypto";

import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  CongopayError,
} from "./errors.js";
import { VERSION } from "./version.js";

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

const DEFAULT_BASE_URL = "http://127.0.0.1:8000";
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
/** A `Retry-After` longer than this is not waited for: the error is thrown at once. */
const LONGEST_RETRY_AFTER_MS = 60_000;

/** Exponential backoff, with jitter so that many clients do not come back together. */
export function backoff(attempt: number): number {
  const ceiling = Math.min(500 * 2 ** attempt, 8_000);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined. */
export function retryAfter(headers: Headers | undefined): number | undefined {
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * How long to wait before trying `error`'s request again, or undefined when it must not be:
 * lost connections and timeouts, 409 idempotency_key_in_use, 429 and 5xx may succeed on another
 * try (the idempotency key makes a POST safe to send again); another 4xx never does.
 */
export function retryDelay(error: APIError, attempt: number): number | undefined {
  const status = error.status;
  const retryable =
    error instanceof APIConnectionError ||
    status === 429 ||
    (status !== undefined && status >= 500) ||
    (status === 409 && error.code === "idempotency_key_in_use");
  if (!retryable) return undefined;
  const asked = retryAfter(error.headers);
  if (asked === undefined) return backoff(attempt);
  return asked <= LONGEST_RETRY_AFTER_MS ? asked : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function environment(name: string): string | undefined {
  const value = typeof process === "undefined" ? undefined : process.env[name];
  return value ? value : undefined;
}

export class APIClient {
  // Private, so that logging the client never shows the key.
  readonly #apiKey: string;
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #headers: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? environment("CONGOPAY_API_KEY");
    if (!apiKey) {
      throw new CongopayError(
        "An API key is needed: new Congopay({ apiKey: 'sk_test_…' }), or CONGOPAY_API_KEY.",
      );
    }
    this.#apiKey = apiKey;
    this.baseURL = (options.baseURL ?? environment("CONGOPAY_BASE_URL") ?? DEFAULT_BASE_URL).replace(
      /\/+$/,
      "",
    );
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    this.#headers = { ...options.headers };
  }

  /** One request, retried as `retryDelay` allows; the answer's JSON (or text). */
  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = {
      Accept: spec.text ? "text/csv, application/json" : "application/json",
      "User-Agent": `congopay-node/${VERSION} node/${typeof process === "undefined" ? "" : process.version}`,
      ...this.#headers,
      ...options.headers,
      Authorization: `Bearer ${this.#apiKey}`,
    };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(spec.body);
    }
    if (spec.method === "POST") {
      // One key for every attempt: a retry of a POST whose answer was lost gets the first
      // answer again instead of doing the thing twice.
      headers["Idempotency-Key"] = options.idempotencyKey ?? randomUUID();
    }
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeout = options.timeout ?? this.timeout;
    for (let attempt = 0; ; attempt++) {
      let error: APIError;
      try {
        const answer = await this.attempt(url, spec.method, headers, payload, timeout);
        if (answer.ok) {
          return (spec.text ? answer.text : answer.text ? JSON.parse(answer.text) : undefined) as T;
        }
        error = APIError.fromResponse(answer.status, answer.headers, answer.text);
      } catch (caught) {
        if (!(caught instanceof APIConnectionError)) throw caught;
        error = caught;
      }
      const wait = attempt < maxRetries ? retryDelay(error, attempt) : undefined;
      if (wait === undefined) throw error;
      await sleep(wait);
    }
  }

  /** The items of every page of a list, fetched as they are needed. */
  list<Item, P extends Page<Item> = Page<Item>>(
    spec: { path: string; query?: Query | undefined; keyset: boolean },
    options?: RequestOptions,
  ): PagePromise<Item, P> {
    return new PagePromise<Item, P>(
      (query) => this.request<P>({ method: "GET", path: spec.path, query }, options),
      spec.query ?? {},
      spec.keyset,
    );
  }

  private url(path: string, query: Query | undefined): string {
    const url = new URL(this.baseURL + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private async attempt(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeout: number,
  ): Promise<{ ok: boolean; status: number; headers: Headers; text: string }> {
    const signal = AbortSignal.timeout(timeout);
    try {
      const response = await fetch(url, { method, headers, body, signal, redirect: "manual" });
      // The body is read under the same deadline: an answer cut off midway is a lost answer.
      const text = await response.text();
      return { ok: response.ok, status: response.status, headers: response.headers, text };
    } catch (cause) {
      if (signal.aborted) {
        throw new APIConnectionTimeoutError(`No answer from ${this.baseURL} within ${timeout} ms.`, {
          cause,
        });
      }
      throw new APIConnectionError(`No answer from ${this.baseURL}: ${describe(cause)}.`, { cause });
    }
  }
}

function describe(error: unknown): string {
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
export class PagePromise<Item, P extends Page<Item> = Page<Item>>
  implements PromiseLike<P>, AsyncIterable<Item>
{
  readonly #fetch: (query: Query) => Promise<P>;
  readonly #query: Query;
  readonly #keyset: boolean;
  #first: Promise<P> | undefined;

  constructor(fetchPage: (query: Query) => Promise<P>, query: Query, keyset: boolean) {
    this.#fetch = fetchPage;
    this.#query = query;
    this.#keyset = keyset;
  }

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.#first ??= this.#fetch(this.#query);
    return this.#first.then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let query: Record<string, unknown> = { ...this.#query };
    for (;;) {
      const page = await this.#fetch(query);
      for (const item of page.data) yield item;
      if (!page.has_more || page.data.length === 0) return;
      if (this.#keyset) {
        // The next page starts after the last item seen: what arrives meanwhile is neither
        // repeated nor skipped.
        const last = page.data[page.data.length - 1] as { id: string };
        query = { ...query, starting_after: last.id };
        delete query.offset;
      } else {
        query = { ...query, offset: page.offset + page.data.length };
      }
    }
  }
}
