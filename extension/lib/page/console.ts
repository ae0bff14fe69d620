// Console capture shared by the MAIN-world hooks (which see the page's
// console, errors and dialogs) and the isolated content script (which answers
// console_logs).
//
// The two worlds share the DOM but not JavaScript objects, so entries cross
// as CustomEvents on the top document whose `detail` is a JSON string
// (primitives cross worlds; objects do not). The page shares that DOM too, so
// the events' types carry the tab's secret (channelOf): a random value the
// service worker hands to both worlds through executeScript's args
// (entrypoints/background/inject.ts). A listener only hears the types it asks
// for and the hooks dispatch with natives they took before any later page
// script could wrap them, so a page that runs after the hooks can neither read
// nor forge what crosses (DESIGN §8, "the private channel").

import type { ConsoleEntry } from "../protocol.gen";

export type { ConsoleEntry };

/** The event types of the channel between the worlds for one secret. */
export interface Channel {
  /** MAIN → isolated: one entry ({level, text, time, dialog?}). Also used by same-origin iframes' hooks. */
  entry: string;
  /** Isolated → MAIN: "I am listening now"; the top frame's hooks answer with replay. */
  hello: string;
  /** Isolated → MAIN: detail "1" while the debugger is attached and answers dialogs natively, "0" after. */
  native: string;
  /** MAIN → isolated: JSON array of every buffered entry so far. */
  replay: string;
  /**
   * MAIN → isolated, dispatched on the element: the page called
   * setPointerCapture (detail "1") or releasePointerCapture ("0") on it
   * (gesture.ts routes a synthetic drag's moves to it).
   */
  capture: string;
  /** Isolated → an element: "your ElementInternals?" (internals.ts); heard only on elements that attached internals. */
  internals: string;
  /** MAIN → the element (or document) asked: the answer (internals.ts). */
  internalsReply: string;
  /** Isolated → a document: "were the hooks here before the page's scripts?" (internals.ts). */
  internalsLate: string;
}

/** The channel's event types for secret. */
export function channelOf(secret: string): Channel {
  const p = `__monkbrowse:${secret}:`;
  return {
    entry: `${p}entry`, hello: `${p}hello`, native: `${p}native`, replay: `${p}replay`, capture: `${p}capture`,
    internals: `${p}internals`, internalsReply: `${p}internals-reply`, internalsLate: `${p}internals-late`,
  };
}

/** A secret for a channel: 128 random bits, hex. */
export function newSecret(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Whether v can be a channel secret (what newSecret makes). */
export function isSecret(v: unknown): v is string {
  return typeof v === "string" && /^[0-9a-f]{32}$/.test(v);
}

export const MAX_ENTRIES = 1000;
export const MAX_ENTRY_TEXT = 5000;

/** A bounded, in-order buffer of the most recent entries. */
export class ConsoleBuffer {
  private entries: ConsoleEntry[] = [];
  constructor(private readonly max = MAX_ENTRIES) {}

  push(e: ConsoleEntry): void {
    this.entries.push(e);
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
  }

  /** Replaces the content (a replay of the full history from the MAIN world). */
  replace(list: ConsoleEntry[]): void {
    this.entries = list.slice(-this.max);
  }

  list(): ConsoleEntry[] {
    return this.entries.slice();
  }

  get length(): number {
    return this.entries.length;
  }
}

/** Validates an entry parsed from an event's detail. */
export function parseEntry(v: unknown): ConsoleEntry | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  if (typeof o.level !== "string" || typeof o.text !== "string" || typeof o.time !== "number") return null;
  return { level: o.level.slice(0, 20), text: o.text.slice(0, MAX_ENTRY_TEXT + 100), time: o.time };
}

/** The dialog an entry records, if it records one (validated). */
export function parseDialog(v: unknown): PageDialog | null {
  if (!v || typeof v !== "object") return null;
  const d = (v as { dialog?: unknown }).dialog;
  if (!d || typeof d !== "object") return null;
  const o = d as Record<string, unknown>;
  if (o.type !== "alert" && o.type !== "confirm" && o.type !== "prompt") return null;
  if (typeof o.message !== "string") return null;
  const out: PageDialog = { type: o.type, message: o.message.slice(0, 2000), accepted: o.accepted === true, armed: o.armed === true };
  if (typeof o.answer === "string") out.answer = o.answer.slice(0, 2000);
  return out;
}

/** Parses an EVT_REPLAY detail (JSON array) into entries, dropping malformed ones. */
export function parseReplay(detail: unknown): ConsoleEntry[] {
  if (typeof detail !== "string") return [];
  try {
    const arr = JSON.parse(detail);
    if (!Array.isArray(arr)) return [];
    return arr.map(parseEntry).filter((e): e is ConsoleEntry => e !== null);
  } catch {
    return [];
  }
}

/**
 * Formats console arguments roughly the way DevTools shows them as text:
 * printf-style %s %d %i %f %o %O %c in a leading string, errors with their
 * stack, objects as JSON (cycles marked), everything joined by spaces.
 */
export function formatArgs(args: readonly unknown[]): string {
  const parts: string[] = [];
  let rest = args;
  if (typeof args[0] === "string" && /%[sdifoOc%]/.test(args[0])) {
    let i = 1;
    const first = args[0].replace(/%([sdifoOc%])/g, (m, f: string) => {
      if (f === "%") return "%";
      if (i >= args.length) return m;
      const a = args[i++];
      switch (f) {
        case "c":
          return "";
        case "s":
          return typeof a === "string" ? a : formatValue(a);
        case "d":
        case "i":
          return typeof a === "number" ? String(Math.trunc(a)) : String(parseInt(String(a), 10));
        case "f":
          return String(Number(a));
        default:
          return formatValue(a);
      }
    });
    parts.push(first);
    rest = args.slice(i);
  } else if (args.length > 0) {
    parts.push(typeof args[0] === "string" ? args[0] : formatValue(args[0]));
    rest = args.slice(1);
  }
  for (const a of rest) parts.push(typeof a === "string" ? a : formatValue(a));
  const text = parts.join(" ");
  return text.length > MAX_ENTRY_TEXT ? `${text.slice(0, MAX_ENTRY_TEXT)}… [${text.length} characters]` : text;
}

/** One value as text. Never throws, never calls page getters more than JSON.stringify does. */
export function formatValue(v: unknown): string {
  try {
    if (v === undefined) return "undefined";
    if (v === null) return "null";
    switch (typeof v) {
      case "string":
        return JSON.stringify(v);
      case "number":
      case "boolean":
        return String(v);
      case "bigint":
        return `${v}n`;
      case "symbol":
        return v.toString();
      case "function":
        return `ƒ ${(v as { name?: string }).name || "anonymous"}()`;
    }
    if (isErrorLike(v)) {
      const e = v as Error;
      const head = `${e.name || "Error"}: ${e.message}`;
      const stack = typeof e.stack === "string" ? e.stack : "";
      return stack.includes(e.message) ? stack : stack ? `${head}\n${stack}` : head;
    }
    if (typeof (v as Node).nodeType === "number" && typeof (v as Node).nodeName === "string") {
      const n = v as Element;
      if (n.nodeType === 1) {
        const id = n.id ? `#${n.id}` : "";
        const cls = typeof n.className === "string" && n.className.trim() ? `.${n.className.trim().split(/\s+/).join(".")}` : "";
        return `<${n.nodeName.toLowerCase()}${id}${cls}>`;
      }
      return n.nodeName;
    }
    const seen = new WeakSet<object>();
    const json = JSON.stringify(v, (_k, val: unknown) => {
      if (typeof val === "bigint") return `${val}n`;
      if (typeof val === "function") return `ƒ ${(val as { name?: string }).name || "anonymous"}()`;
      if (val && typeof val === "object") {
        if (seen.has(val)) return "[Circular]";
        seen.add(val);
      }
      return val;
    });
    if (json === undefined) return String(v);
    return json.length > MAX_ENTRY_TEXT ? `${json.slice(0, MAX_ENTRY_TEXT)}…` : json;
  } catch {
    try {
      return Object.prototype.toString.call(v);
    } catch {
      return "[object]";
    }
  }
}

function isErrorLike(v: unknown): boolean {
  if (v instanceof Error) return true;
  const o = v as { name?: unknown; message?: unknown; stack?: unknown };
  return typeof o.message === "string" && typeof o.stack === "string";
}

/** How a dialog was answered: by monkbrowse's default, or as browser_handle_dialog asked. */
export type DialogHow = "default" | "armed";

/**
 * The text recorded for a dialog the hooks answered:
 * `confirm("Delete?") → false (dismissed by default)`.
 */
export function formatDialog(
  kind: "alert" | "confirm" | "prompt",
  message: unknown,
  result: unknown,
  defaultValue?: unknown,
  how?: DialogHow,
): string {
  const msg = message === undefined ? "" : JSON.stringify(String(message));
  const why = (verb: string) => (how === "armed" ? ` (${verb} as browser_handle_dialog asked)` : how === "default" ? ` (${verb} by default)` : "");
  if (kind === "alert") return `alert(${msg})${how ? " (acknowledged)" : ""}`;
  if (kind === "confirm") return `confirm(${msg}) → ${String(result)}${why(result === true ? "accepted" : "dismissed")}`;
  const args = defaultValue === undefined ? msg : `${msg || '""'}, ${JSON.stringify(String(defaultValue))}`;
  const out = result === null ? "null" : JSON.stringify(String(result));
  return `prompt(${args}) → ${out}${why(result === null ? "cancelled" : "answered")}`;
}

/** The text recorded for an uncaught error event. */
export function formatUncaught(message: unknown, error: unknown, source?: string, line?: number, col?: number): string {
  if (error !== undefined && error !== null) {
    const t = formatValue(error);
    return `Uncaught ${typeof error === "string" ? error : t}`;
  }
  const where = source ? ` (${source}${line ? `:${line}` : ""}${col ? `:${col}` : ""})` : "";
  return `Uncaught ${String(message ?? "error")}${where}`;
}

/** The text recorded for an unhandled promise rejection. */
export function formatRejection(reason: unknown): string {
  return `Uncaught (in promise) ${typeof reason === "string" ? reason : formatValue(reason)}`;
}

/** A dialog the hooks answered, as reported to the service worker and the AI. */
export interface PageDialog {
  type: "alert" | "confirm" | "prompt";
  message: string;
  /** OK (alert, or confirm/prompt accepted) or not (dismissed, cancelled). */
  accepted: boolean;
  /** The answer came from browser_handle_dialog, not the default. */
  armed: boolean;
  /** What prompt() returned when accepted. */
  answer?: string;
}

/** A console entry that records a dialog carries it structured too. */
export type HookEntry = ConsoleEntry & { dialog?: PageDialog };

/** The answer browser_handle_dialog sets for the next dialog of a tab. */
export interface DialogArm {
  accept: boolean;
  promptText?: string;
  /** Date.now() after which it no longer applies. */
  expiresAt: number;
}
