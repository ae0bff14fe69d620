// browser_upload_file: puts a file into a file input (or the one behind an
// upload button) as the file chooser would.

import { isFileInput, parentOrHost, tagOf, windowOf } from "./dom";
import { ensureEnabled, type Win } from "./events";
import { PageError, type RefRegistry } from "./refs";
import { describeElement } from "./describe";

// ---------- upload ----------

const MIME: Record<string, string> = {
  txt: "text/plain", csv: "text/csv", html: "text/html", htm: "text/html", json: "application/json",
  xml: "application/xml", pdf: "application/pdf", zip: "application/zip", gz: "application/gzip",
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp",
  svg: "image/svg+xml", bmp: "image/bmp", ico: "image/x-icon", avif: "image/avif", heic: "image/heic",
  mp3: "audio/mpeg", wav: "audio/wav", ogg: "audio/ogg", mp4: "video/mp4", webm: "video/webm", mov: "video/quicktime",
  md: "text/markdown", js: "text/javascript", css: "text/css", ts: "text/plain",
  doc: "application/msword", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel", xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint", pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

export function guessMimeType(name: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (ext && MIME[ext]) || "application/octet-stream";
}

function findFileInput(el: Element): HTMLInputElement | null {
  if (isFileInput(el)) return el;
  if (tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c && isFileInput(c)) return c;
  }
  // Look around: a styled button and its hidden input usually share a small wrapper.
  let scope: Element | null = el;
  for (let i = 0; scope && i < 4; i++, scope = parentOrHost(scope)) {
    const t = tagOf(scope);
    if (t === "body" || t === "html") break;
    const found = scope.querySelectorAll("input[type=file]");
    if (found.length === 1) return found[0] as HTMLInputElement;
    if (found.length > 1) return null;
  }
  return null;
}

function decodeBase64(data: string, win: Win): Uint8Array {
  let bin: string;
  try {
    bin = win.atob(data.replace(/^data:[^,]*,/, "").replace(/\s+/g, ""));
  } catch {
    throw new PageError("the file data is not valid base64");
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export function upload(refs: RefRegistry, args: { ref: string; name: string; data: string; mimeType?: string }): void {
  const found = refs.resolve(args.ref);
  const input = findFileInput(found);
  if (!input) {
    throw new PageError(
      `ref ${args.ref} (${describeElement(found)}) is not a file input and none was found next to it; take a new browser_snapshot and use the ref of the file input (shown as "button … [type=file]")`,
    );
  }
  ensureEnabled(input, args.ref, "given a file");
  const win = windowOf(input);
  const name = String(args.name || "file");
  const bytes = decodeBase64(String(args.data ?? ""), win);
  const file = new win.File([bytes as BlobPart], name, { type: args.mimeType || guessMimeType(name), lastModified: Date.now() });
  if (typeof win.DataTransfer === "function") {
    const dt = new win.DataTransfer();
    dt.items.add(file);
    input.files = dt.files;
  } else {
    // No DataTransfer (old test DOMs): expose a FileList-like on the element.
    const list = Object.assign([file], { item: (i: number) => (i === 0 ? file : null) });
    Object.defineProperty(input, "files", { value: list, configurable: true });
  }
  input.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
  input.dispatchEvent(new win.Event("change", { bubbles: true }));
}
