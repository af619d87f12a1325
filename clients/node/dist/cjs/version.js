"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.VERSION = void 0;
/** The library's version, sent in its User-Agent. */
exports.VERSION = "0.1.0";
