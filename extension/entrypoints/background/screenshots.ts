// browser_screenshot: the visible viewport (captureVisibleTab), one
// element cropped out of it, and the whole page (one capture in the
// debugger mode, else stitched from viewport captures). Secret fields
// (lib/page/secret.ts: a field that is or ever was a password, code or
// card field) are painted over in every capture, unless the person allowed
// them in the options (Consent.secretsInShots; issue 40).

import type { TabLike } from "../../lib/executor";
import { errorText } from "../../lib/peer";
import { contentOp } from "./content-ops";
import { frameBlockedBoxes, frameSecretBoxes, refBox } from "./frames";
import { debuggerEnabled, withDebugger } from "./debugger";
import { AttachError } from "../../lib/debugger-fallback";
import { reported } from "../../lib/diag";
import { fitScale, scaledSize, type ShotOptions } from "../../lib/shot-size";
import type { Shot } from "../../lib/executor";
import { KEY_CONSENT, normalizeConsent } from "../../lib/storage";

/** What secret fields are painted with. */
const COVER = "#7a7a7a";

/** The boxes to paint over (viewport CSS pixels, at the scroll they were read): secret fields unless the person allows them, and frames kept from the AI (never) always; null when none. */
async function secretsToCover(tabId: number): Promise<{ boxes: { x: number; y: number; width: number; height: number }[]; scrollX: number; scrollY: number } | null> {
  const got = await chrome.storage.local.get(KEY_CONSENT);
  // The frames the site rules keep from the AI (never) are painted over whatever the person allows for secret fields (issue 44).
  const secretsOk = normalizeConsent(got[KEY_CONSENT]).secretsInShots;
  const kept = await frameBlockedBoxes(tabId);
  if (secretsOk && kept.length === 0) return null;
  const [top, frames] = await Promise.all([contentOp(tabId, "secret_boxes", {}), secretsOk ? [] : frameSecretBoxes(tabId)]);
  return { ...top, boxes: [...(secretsOk ? [] : top.boxes), ...frames, ...kept] };
}

/**
 * Paints over boxes (CSS pixels, moved by dx/dy) on a drawing of scale
 * device pixels per CSS pixel: whole pixels, rounded outwards.
 */
function cover(ctx: OffscreenCanvasRenderingContext2D, boxes: { x: number; y: number; width: number; height: number }[], scale: number, dx = 0, dy = 0): void {
  ctx.fillStyle = COVER;
  for (const b of boxes) {
    const x0 = Math.floor((b.x + dx) * scale);
    const y0 = Math.floor((b.y + dy) * scale);
    ctx.fillRect(x0, y0, Math.ceil((b.x + dx + b.width) * scale) - x0, Math.ceil((b.y + dy + b.height) * scale) - y0);
  }
}

/** The capture with the boxes painted over (the capture itself when there are none). */
function covered(bmp: ImageBitmap, boxes: { x: number; y: number; width: number; height: number }[] | undefined, scale: number): ImageBitmap | OffscreenCanvas {
  if (!boxes || boxes.length === 0) return bmp;
  const canvas = new OffscreenCanvas(bmp.width, bmp.height);
  const ctx = canvas.getContext("2d")!;
  ctx.drawImage(bmp, 0, 0);
  cover(ctx, boxes, scale);
  return canvas;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs fn with the tab shown in its window, then gives the person's tab back. */
async function withTabShown<T>(tab: TabLike, fn: () => Promise<T>): Promise<T> {
  const [previous] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
  const switched = previous?.id !== undefined && previous.id !== tab.id;
  try {
    if (switched) {
      await chrome.tabs.update(tab.id, { active: true });
      // Give the compositor a frame or two to paint the newly shown tab.
      await sleep(150);
    }
    return await fn();
  } finally {
    if (switched && previous?.id !== undefined) {
      await chrome.tabs.update(previous.id, { active: true }).catch(reported("screenshot: activating the tab that was active before"));
    }
  }
}

let lastCapture = 0;
/** captureVisibleTab as a data: URL, paced under Chrome's limit of 2 calls a second. */
async function captureDataUrl(tab: TabLike): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const wait = lastCapture + 520 - Date.now();
    if (wait > 0) await sleep(wait);
    lastCapture = Date.now();
    try {
      // Lossless: the image is scaled and encoded once, by render().
      return await chrome.tabs.captureVisibleTab(tab.windowId, { format: "png" });
    } catch (e) {
      if (attempt < 3 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(errorText(e))) {
        await sleep(600);
        continue;
      }
      throw new Error(`screenshot of tab ${tab.id} failed: ${errorText(e)}`);
    }
  }
}

async function bitmapOf(dataUrl: string): Promise<ImageBitmap> {
  const blob = await (await fetch(dataUrl)).blob();
  return createImageBitmap(blob);
}

function base64Of(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * Draws a region of a capture (device pixels) at the size rule's scale and
 * encodes it. devicePerCss is the capture's device pixels per CSS pixel,
 * so the answer's scale is image pixels per CSS pixel.
 */
async function render(
  src: ImageBitmap | OffscreenCanvas,
  region: { x: number; y: number; width: number; height: number },
  devicePerCss: number,
  o: ShotOptions,
): Promise<Shot> {
  const f = fitScale(region.width, region.height, o.fullSize);
  const { width, height } = scaledSize(region.width, region.height, f);
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext("2d")!;
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(src, region.x, region.y, region.width, region.height, 0, 0, width, height);
  const type = `image/${o.format}`;
  const blob = await canvas.convertToBlob(o.format === "png" ? { type } : { type, quality: o.quality });
  // A browser that cannot encode the type falls back to PNG silently.
  if (blob.type !== type) throw new Error(`this browser cannot encode ${o.format} images; ask for format png or jpeg`);
  return {
    data: base64Of(new Uint8Array(await blob.arrayBuffer())),
    mimeType: type,
    width,
    height,
    scale: (width / region.width) * devicePerCss,
  };
}

/** The visible area, scaled to the size rule unless fullSize. */
export async function screenshot(tab: TabLike, o: ShotOptions): Promise<Shot> {
  const m = await contentOp(tab.id, "metrics", {});
  return withTabShown(tab, async () => {
    // Read right before the capture: the page is as captured.
    const secrets = await secretsToCover(tab.id);
    const bmp = await bitmapOf(await captureDataUrl(tab));
    try {
      return await render(covered(bmp, secrets?.boxes, bmp.width / Math.max(1, m.viewportWidth)), { x: 0, y: 0, width: bmp.width, height: bmp.height }, m.dpr || 1, o);
    } finally {
      bmp.close();
    }
  });
}

/** The most viewports a stitched full-page screenshot captures. */
export const MAX_STITCH = 10;
/** The largest canvas side we stitch into (Chrome's canvas limit is higher; PNGs this big are already huge). */
const MAX_CANVAS_SIDE = 16_384;
export async function screenshotElement(tab: TabLike, ref: string, o: ShotOptions): Promise<Shot> {
  return withTabShown(tab, async () => {
    // In the top page's viewport, frames' offsets included (a frame ref's too).
    const box = await refBox(tab.id, ref);
    const v = box.visible;
    if (v.width < 1 || v.height < 1) throw new Error(`ref ${ref} is not in the visible area even after scrolling to it; take a new browser_snapshot`);
    const secrets = await secretsToCover(tab.id);
    const raw = await bitmapOf(await captureDataUrl(tab));
    // The capture's scale: device pixels per CSS pixel (zoom included).
    const scale = raw.width / box.viewportWidth;
    const bmp = covered(raw, secrets?.boxes, scale);
    const sx = Math.round(v.x * scale);
    const sy = Math.round(v.y * scale);
    const w = Math.max(1, Math.min(raw.width - sx, Math.round(v.width * scale)));
    const h = Math.max(1, Math.min(raw.height - sy, Math.round(v.height * scale)));
    let shot: Shot;
    try {
      shot = await render(bmp, { x: sx, y: sy, width: w, height: h }, scale, o);
    } finally {
      raw.close();
    }
    const cut = v.width < box.width - 1 || v.height < box.height - 1;
    return {
      ...shot,
      note: cut ? `The element is larger than the visible area (${Math.round(box.width)}×${Math.round(box.height)} CSS pixels): only its visible part is shown.` : undefined,
    };
  });
}

/** A whole-page screenshot: one capture in the debugger mode, else stitched from viewport captures. */
export async function screenshotFullPage(tab: TabLike, o: ShotOptions): Promise<Shot> {
  const m = await contentOp(tab.id, "metrics", {});
  // Chrome refused its debugger (a policy, another debugger): stitched, and said so (issue 44).
  let refused: AttachError | undefined;
  const r = !(await debuggerEnabled())
    ? undefined
    : await withDebugger(tab.id, (send) =>
        // One lossless capture, then the same scaling and encoding as the
        // others, so the size rule and the reported scale are exact.
        send<{ data: string }>("Page.captureScreenshot", {
          format: "png",
          captureBeyondViewport: true,
          clip: { x: 0, y: 0, width: m.width, height: Math.min(m.height, MAX_CANVAS_SIDE), scale: 1 },
        }),
      ).catch((e: unknown) => {
        if (!(e instanceof AttachError)) throw e;
        refused = e;
        return undefined;
      });
  if (r) {
    const bmp = await bitmapOf(`data:image/png;base64,${r.data}`);
    let shot: Shot;
    try {
      // The page's boxes at the scroll they were read at, moved to page coordinates.
      const secrets = await secretsToCover(tab.id);
      const scale = bmp.width / Math.max(1, m.width);
      let src: ImageBitmap | OffscreenCanvas = bmp;
      if (secrets && secrets.boxes.length > 0) {
        const c = new OffscreenCanvas(bmp.width, bmp.height);
        const cx = c.getContext("2d")!;
        cx.drawImage(bmp, 0, 0);
        cover(cx, secrets.boxes, scale, secrets.scrollX, secrets.scrollY);
        src = c;
      }
      shot = await render(src, { x: 0, y: 0, width: bmp.width, height: bmp.height }, scale, o);
    } finally {
      bmp.close();
    }
    return { ...shot, note: m.height > MAX_CANVAS_SIDE ? `Cut at ${MAX_CANVAS_SIDE} CSS pixels of the page's ${m.height}.` : undefined };
  }
  const screens = Math.ceil(m.height / Math.max(1, m.viewportHeight));
  if (screens > MAX_STITCH) {
    throw new Error(
      `the page is ${m.height} CSS pixels tall, ${screens} screens; a full-page screenshot without the debugger mode stitches at most ${MAX_STITCH}. ` +
        "Take screenshots of parts (browser_scroll, then browser_screenshot, or ref for one element), or ask the person to switch on the debugger mode in the monkbrowse options for a single full-page capture",
    );
  }
  return withTabShown(tab, async () => {
    const home = { x: m.scrollX, y: m.scrollY };
    let canvas: OffscreenCanvas | undefined;
    let ctx: OffscreenCanvasRenderingContext2D | undefined;
    let scale = 1;
    try {
      for (let i = 0; i < screens; i++) {
        const at = await contentOp(tab.id, "scroll_to", { x: 0, y: i * m.viewportHeight });
        const secrets = await secretsToCover(tab.id);
        const bmp = await bitmapOf(await captureDataUrl(tab));
        if (!canvas) {
          scale = bmp.width / m.viewportWidth;
          const w = Math.min(MAX_CANVAS_SIDE, bmp.width);
          const h = Math.min(MAX_CANVAS_SIDE, Math.round(m.height * scale));
          canvas = new OffscreenCanvas(w, h);
          ctx = canvas.getContext("2d")!;
        }
        ctx!.drawImage(bmp, 0, Math.round(at.scrollY * scale));
        bmp.close();
        // This screen's secret fields, at the place the screen was drawn.
        if (secrets) cover(ctx!, secrets.boxes, scale, 0, at.scrollY);
        if (at.scrollY + m.viewportHeight >= m.height) break;
      }
    } finally {
      await contentOp(tab.id, "scroll_to", home).catch(reported("screenshot: scrolling back after a full-page capture"));
    }
    const shot = await render(canvas!, { x: 0, y: 0, width: canvas!.width, height: canvas!.height }, scale, o);
    const stitched = screens > 1 ? `Stitched from ${screens} screens; fixed or sticky elements may repeat.` : undefined;
    const why = refused ? `Taken without the debugger mode's single capture: ${refused.message}` : undefined;
    return { ...shot, note: [why, stitched].filter(Boolean).join(" ") || undefined };
  });
}
