import type { Event } from "./generated.js";
/** A delivery's headers as a framework gives them: a fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined> | {
    get(name: string): string | null;
};
export declare class Webhooks {
    /**
     * The event a delivery carries, once its signature and timestamp are verified; else a
     * `WebhookVerificationError`. Give it the raw body exactly as received (before any JSON
     * parsing: re-encoded JSON no longer matches its signature), the request's headers and your
     * endpoint's secret (`whsec_…`).
     */
    unwrap(body: string | Uint8Array, headers: WebhookHeaders, secret: string): Event;
    /**
     * The `webhook-signature` header of a body: to test your own handler with deliveries of your
     * making. `timestamp` in seconds since 1970, or a Date.
     */
    sign(id: string, timestamp: number | Date, body: string | Uint8Array, secret: string): string;
    private digest;
}
