// The screenshot size rule (issue 30): an image costs about width × height
// / 750 image tokens, so by default a capture is scaled down until width ×
// height ≤ MAX_SCREENSHOT_PIXELS (≈1,000 tokens; about 1155×650 for 16:9).
// fullSize keeps the capture's device pixels.

import { MAX_SCREENSHOT_PIXELS } from "./protocol.gen";

export type ShotFormat = "jpeg" | "png" | "webp";

export interface ShotOptions {
  format: ShotFormat;
  /** 0..1 for the encoder (jpeg, webp). */
  quality: number;
  fullSize: boolean;
}

export const DEFAULT_QUALITY = 80;

/** Reads and checks the request's options; defaults: JPEG, quality 80, scaled. */
export function shotOptions(p: { [K in "format" | "quality" | "fullSize"]?: unknown }): ShotOptions {
  const format = p.format === undefined || p.format === "" ? "jpeg" : p.format;
  if (format !== "jpeg" && format !== "png" && format !== "webp") {
    throw new Error(`format must be jpeg, png or webp, not ${JSON.stringify(format)}`);
  }
  const q = p.quality === undefined || p.quality === 0 ? DEFAULT_QUALITY : p.quality;
  if (typeof q !== "number" || !Number.isInteger(q) || q < 1 || q > 100) {
    throw new Error(`quality must be a whole number from 1 to 100, not ${JSON.stringify(q)}`);
  }
  return { format, quality: q / 100, fullSize: p.fullSize === true };
}

/** The factor (≤ 1) that brings w × h device pixels within the size rule. */
export function fitScale(w: number, h: number, fullSize: boolean, maxPixels = MAX_SCREENSHOT_PIXELS): number {
  if (fullSize || w * h <= maxPixels) return 1;
  return Math.sqrt(maxPixels / (w * h));
}

/**
 * The output size of a w × h region at factor f, rounded down so the rule
 * holds after rounding, and at least 1×1.
 */
export function scaledSize(w: number, h: number, f: number): { width: number; height: number } {
  if (f >= 1) return { width: Math.max(1, Math.round(w)), height: Math.max(1, Math.round(h)) };
  const width = Math.max(1, Math.floor(w * f));
  const height = Math.max(1, Math.floor(h * f));
  // A strip one pixel across keeps its side of 1: shorten the long side instead.
  const max = Math.max(1, Math.floor(w * h * f * f));
  if (width * height > max) return width === 1 ? { width, height: Math.max(1, Math.floor(max / width)) } : { width: Math.max(1, Math.floor(max / height)), height };
  return { width, height };
}
