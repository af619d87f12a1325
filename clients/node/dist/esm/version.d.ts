/** The library's version, sent in its User-Agent. */
export declare const VERSION = "0.1.0";
