// The internal message table: everything the service worker, the offscreen
// document and the popup/options pages say to each other over
// chrome.runtime messaging. These messages never leave the browser.
// Every message carries `to` ("bg" = service worker, "off" = offscreen
// document) and `kind`; receivers ignore messages not addressed to them.

import type { ConnectInfo } from "./connection";
import type { ConsoleEntry, Dialog, LeftTab, SitePolicy, TabInfo, WireType } from "./protocol.gen";
import type { NewEdit } from "./person";
import type { Pointed } from "./page/person";
import { CodedError } from "./peer";
import type { Status } from "./storage";

/** A message with nothing but its `to` and `kind`. */
export type Empty = Record<never, never>;

export type Reply<T> = { ok: true; result: T } | { ok: false; error: string; code?: string };

/** Messages to the service worker, with the result each one answers. */
export interface BgMessages {
  /** offscreen → bg: what to connect to, the profile and the pairing secret (refresh: ask the native host again). */
  "connect-info": { req: { refresh: boolean }; res: ConnectInfo };
  /** offscreen → bg: run one wire request from the server. */
  exec: { req: { type: WireType | string; payload: unknown; callId?: string }; res: unknown };
  /** offscreen → bg: the server cancelled the exec with this callId: stop what can be abandoned. */
  cancel: { req: { callId: string }; res: null };
  /** offscreen → bg: the server accepted the hello. */
  accepted: { req: { assignedLabel: string; assignedSlug: string; serverVersion: string }; res: null };
  /** offscreen → bg: the server refused a call unsent because the AI is paused (protocol Refused): log it. */
  refused: { req: { tool: string; tabId?: number; app?: string }; res: null };
  /** offscreen → bg: connection state changed (bg writes it to storage). */
  status: { req: { status: Status }; res: null };
  /** popup → bg: share or unshare one tab. */
  share: { req: { tabId: number; shared: boolean }; res: { slot: number | null } };
  /** popup → bg: Stop (paused) or Resume the AI in this profile, or with tabId in that tab only; running calls answer with code paused. */
  pause: { req: { paused: boolean; tabId?: number }; res: null };
  /** popup → bg: share every tab of every normal window. */
  "share-all": { req: Empty; res: null };
  /**
   * content script → bg: answers after ms (at most SLEEP_MAX_MS). A timer for
   * hidden tabs, where Chrome runs the page's own timers only once a second
   * (lib/page/settle.ts).
   */
  sleep: { req: { ms: number }; res: null };
  /**
   * content script → bg: the page answered a dialog with the answer
   * browser_handle_dialog armed; it is used up (the sender's tab only).
   */
  "dialog-used": { req: Empty; res: null };
  /**
   * content script → bg: a long synchronous job (a snapshot) begins in the
   * sender's tab. Until its answer the page is busy, not blocked by a native
   * dialog (background/inject.ts unlessBlocked).
   */
  busy: { req: Empty; res: null };
  /**
   * content script or offscreen → bg: a failure it went on without, for the
   * diagnostics log (lib/diag.ts; bounded again by the service worker).
   */
  diag: { req: { where: string; message: string }; res: null };
  /**
   * content script (the banner's trusted click) or popup → bg: the person
   * answered a browser_ask_user request (background/ask.ts checks who).
   */
  "ask-answer": { req: { askId: string; answer: "done" | "declined" }; res: null };
  /**
   * popup → bg: the person's Allow, Allow for 10 minutes or Deny of an
   * action waiting under "ask before acting" (issue 44); like ask-answer,
   * counted only from the extension's own pages.
   */
  "approval-answer": { req: { id: string; answer: "allow" | "allow10" | "deny" }; res: null };
  /**
   * content script → bg: a trusted input event in the sender's tab (issue 29):
   * the worker keeps it as the person's edit unless monkbrowse was acting in
   * the tab at `at` (lib/person.ts). refHigh: the document's highest ref.
   */
  person: { req: { edit: NewEdit; at: number; refHigh: number }; res: null };
  /**
   * popup or options page → bg: "Show this to the AI" for the tab's frame, as
   * the context menu does (the e2e harness and the popup use it).
   */
  point: { req: { tabId: number; frameId?: number }; res: { pointed: boolean } };
  /**
   * content script → bg: a step of the person's recording (issue 42,
   * lib/page/recorder.ts), kept only while the sender's tab records
   * (lib/recorder.ts); the frame is the sender's. at: the event's time.
   */
  "record-step": { req: { step: unknown; at: number }; res: null };
  /** popup → bg: start recording the shared tab. */
  "record-start": { req: { tabId: number }; res: null };
  /** popup → bg: stop the recording; it waits for its name. */
  "record-stop": { req: Empty; res: null };
  /** popup → bg: name the stopped recording and keep it (renames: new names of its parameters). */
  "record-save": { req: { name: string; description: string; renames?: Record<string, string> }; res: { name: string } };
  /** popup → bg: forget the recording under way or stopped. */
  "record-discard": { req: Empty; res: null };
  /**
   * popup → bg: the person's answer to a site tool's question (issue 43);
   * extension pages only (not in CONTENT_SCRIPT_KINDS, and the handler checks the sender's URL).
   */
  "site-tool-answer": { req: { id: string; answer: "once" | "always" | "deny" }; res: null };
  /** options page → bg: revoke an "Always on this site" of a site tool. */
  "site-tool-revoke": { req: { origin: string; app: string; tool: string }; res: null };
}

/** The longest a "sleep" message waits. */
export const SLEEP_MAX_MS = 1000;

/** Messages to the offscreen document. */
export interface OffMessages {
  /** bg → offscreen: send tabs_changed now (if connected). */
  "tabs-push": { req: { tabs: TabInfo[]; paused: boolean; policy?: SitePolicy; left?: LeftTab[] }; res: null };
  /** bg → offscreen: settings changed, reconnect at once. */
  reconnect: { req: Empty; res: null };
}

export type BgKind = keyof BgMessages;
export type OffKind = keyof OffMessages;

export type BgMessage<K extends BgKind = BgKind> = { to: "bg"; kind: K } & BgMessages[K]["req"];
export type OffMessage<K extends OffKind = OffKind> = { to: "off"; kind: K } & OffMessages[K]["req"];

export function isBgMessage(m: unknown): m is BgMessage {
  return typeof m === "object" && m !== null && (m as { to?: unknown }).to === "bg" && typeof (m as { kind?: unknown }).kind === "string";
}

// Content scripts live inside web pages; a compromised page could make its
// renderer send any message in their name. They may only ask for what the
// page side needs; everything else (running wire requests, changing shares)
// must come from the extension's own pages: offscreen document, popup, options.
export const CONTENT_SCRIPT_KINDS: ReadonlySet<string> = new Set(["sleep", "dialog-used", "busy", "diag", "person", "record-step"]);

/**
 * Whether the service worker accepts a message of this kind from sender:
 * from this extension only, and from a content script only the kinds above.
 * self is this extension's id and origin (chrome-extension://<id>/).
 */
export function senderMayAsk(kind: string, sender: { id?: string; url?: string }, self: { id: string; origin: string }): boolean {
  if (sender.id !== self.id) return false;
  // An extension page opened in a tab (the popup as a page) has a tab too: the URL tells.
  const extensionPage = (sender.url ?? "").startsWith(self.origin);
  return extensionPage || CONTENT_SCRIPT_KINDS.has(kind);
}

/** Sends a message to the service worker and unwraps its reply; a refusal becomes an error with its code. */
export async function toBg<K extends BgKind>(msg: BgMessage<K>): Promise<BgMessages[K]["res"]> {
  const reply = (await chrome.runtime.sendMessage(msg)) as Reply<BgMessages[K]["res"]> | undefined;
  if (!reply) throw new Error("the extension's service worker gave no answer");
  if (!reply.ok) throw reply.code ? new CodedError(reply.code, reply.error) : new Error(reply.error);
  return reply.result;
}

export function isOffMessage(m: unknown): m is OffMessage {
  return typeof m === "object" && m !== null && (m as { to?: unknown }).to === "off" && typeof (m as { kind?: unknown }).kind === "string";
}

/**
 * What an action's answer carries besides its result: navStarted (the
 * NAVIGATING_OPS of lib/page/handler.ts: whether the page saw a navigation
 * begin during the action and its settle) and the dialogs answered since the
 * last report (entrypoints/content.ts), and unchanged.
 */
export interface PageNotes {
  navStarted?: boolean;
  dialogs?: Dialog[];
  /**
   * The page showed no effect of the action (lib/page/handler.ts
   * EFFECT_WATCHED_OPS): no DOM, focus, value, selection, scroll, canvas or
   * address change by the end of its settle.
   */
  unchanged?: boolean;
  /**
   * The debugger mode did the action (or part of it) with synthetic input:
   * the debugger could not attach (issue 44), or the target is a canvas's
   * fallback content, which no real click reaches (issue 41). The note for the AI.
   */
  fallback?: string;
}

/** The actions on the page: their answers carry PageNotes. */
export const ACTION_OPS = ["click", "hover", "type", "select", "press_key", "scroll", "drag", "upload", "fill_form", "click_xy", "drag_xy"] as const;
export type ActionOp = (typeof ACTION_OPS)[number];

/**
 * The service worker ↔ content script bridge of docs/CONTRACTS.md: each op,
 * its args and its result. The executor (lib/executor.ts) sends through it,
 * the content script (lib/page/handler.ts) answers through it.
 */
export interface CsOps {
  /** refBase: the highest ref earlier documents of this tab handed out; refHigh: this document's highest. */
  /**
   * links: the token posted into each cross-origin iframe element's window,
   * by the element's ref (lib/page/framelink.ts; background/frames.ts pairs
   * them with the tokens the child frames answer to frame_link).
   */
  snapshot: {
    /** linkTokens: the service worker's tokens to post into this document's cross-origin frames (in order; fresh ones after). */
    /** refMarks: mark every printed ref (a frame's snapshot, whose refs the service worker names); else only the cross-origin iframe lines. */
    /** ax: Chromium's additions for the elements ax_candidates stashed (debugger mode, lib/axtree.ts). */
    args: { refBase?: number; stopAfterChars?: number; linkTokens?: string[]; refMarks?: boolean; ax?: { stamp: string; hints: unknown[] } };
    /** marks: where the printed refs are (lib/page/snapshot-yaml.ts Emitted.marks). */
    result: { snapshot: string; viewport?: string[]; refHigh?: number; limited?: boolean; links?: Record<string, string>; marks?: number[] } & PageNotes;
  };
  /**
   * Debugger mode, before a snapshot: the elements whose roles and states
   * the snapshot cannot read (lib/page/axhints.ts), kept under stamp for
   * the service worker to ask Chromium about (lib/axtree.ts).
   */
  ax_candidates: { args: Empty; result: { stamp: string; count: number; truncated: boolean } };
  click: { args: { ref: string }; result: PageNotes };
  hover: { args: { ref: string }; result: PageNotes };
  type: { args: { ref: string; text: string; submit?: boolean }; result: PageNotes };
  select: { args: { ref: string; values: string[] }; result: { selected: string[] } & PageNotes };
  press_key: { args: { key: string }; result: PageNotes };
  scroll: { args: { direction?: string; amount?: number; ref?: string }; result: PageNotes };
  drag: { args: { startRef: string; endRef: string }; result: PageNotes };
  upload: { args: { ref: string; name: string; data: string; mimeType?: string }; result: PageNotes };
  get_text: { args: { ref?: string }; result: { text: string } };
  console_logs: { args: Empty; result: { logs: ConsoleEntry[] } };
  /** text with the frame's secret field values masked (a site tool's result, issue 43). */
  mask_text: { args: { text: string }; result: { text: string } };
  fill_form: { args: { fields: { ref: string; element?: string; value: string }[] }; result: { filled: number } & PageNotes };
  /**
   * into: the point is on a cross-origin frame's area: nothing was done here;
   * the service worker sends the op on to the frame that iframe element
   * (ref) shows, with the point(s) in that frame's viewport (background/frames.ts).
   */
  click_xy: { args: { x: number; y: number; button?: string; double?: boolean }; result: { target: string; into?: FrameHit } & PageNotes };
  drag_xy: { args: { startX: number; startY: number; endX: number; endY: number }; result: { target: string; into?: FrameHit } & PageNotes };
  /**
   * The element's box (CSS px) in the viewport of the outermost window this
   * document reaches (the top-level one, but for a cross-origin frame its own),
   * scrolled into view unless scroll is false; content: its content box.
   */
  rect: { args: { ref: string; scroll?: boolean; content?: boolean }; result: ElementBox };
  /**
   * A frame link round outside a snapshot (a click at a point over a frame):
   * posts a fresh token into each cross-origin iframe of this document (and
   * into ref's, which may be in a shadow root) and answers them by ref.
   */
  frame_tokens: { args: { ref?: string }; result: { links: Record<string, string> } };
  metrics: { args: Empty; result: PageMetrics };
  /**
   * The boxes of the secret fields in view (lib/page/secret.ts secretBoxes;
   * viewport CSS pixels) and the scroll they were read at, for screenshots
   * to paint over (issue 40).
   */
  secret_boxes: { args: Empty; result: { boxes: { x: number; y: number; width: number; height: number }[]; scrollX: number; scrollY: number } };
  scroll_to: { args: { x: number; y: number }; result: { scrollX: number; scrollY: number } };
  /** Waits for the DOM to settle (after trusted input sent through the debugger). */
  settle: { args: Empty; result: Empty };
  /**
   * A debugger-mode click (background/trusted-input.ts): click_check makes
   * the DOM click's checks, starts its effect watch and answers the box to
   * click; click_effect, after the real input, settles and fails when the
   * watched click changed nothing (lib/page/pointer.ts). dom: the element
   * is a canvas's fallback content, which has no box a real click could
   * reach: the service worker clicks it as the DOM click does.
   */
  click_check: { args: { ref: string; scroll?: boolean }; result: ElementBox | { dom: true } };
  click_effect: { args: { ref: string }; result: Empty };
  /** The activity log's targets: each ref's role, accessible name and whether it is a secret field (lib/page/target.ts). */
  describe: { args: { refs: string[] }; result: { targets: ({ role: string; name: string; secret: boolean } | null)[] } };
  /**
   * A frame's side of the frame link (entrypoints/content.ts): inlined when
   * its parent's snapshot already shows it (same-origin), else which of this
   * round's tokens (expect) its parent window posted into it since the last ask.
   */
  /**
   * snapshot: when this frame got one of the expected tokens, it answers its
   * own snapshot with these args too (one round trip per frame, not two; the
   * service worker uses it only for a frame the round links).
   */
  frame_link: {
    args: { expect: string[]; snapshot?: CsOps["snapshot"]["args"] };
    result: { inlined: boolean; tokens: string[]; snapshot?: CsOps["snapshot"]["result"] };
  };
  /** Whether this document has the keyboard focus itself (not an iframe of it): press_key goes there. */
  focus: { args: Empty; result: { focused: boolean } };
  /** The hand-off banner (lib/page/ask-banner.ts), top frame only; content.ts's own ops. */
  ask_show: { args: { askId: string }; result: Empty };
  ask_hide: { args: { askId?: string }; result: Empty };
  /** While the debugger is attached, the top frame's dialogs go to Chrome (entrypoints/content.ts). */
  native_dialogs: { args: { on: boolean }; result: Empty };
  /** What the person points at ("Show this to the AI", lib/page/person.ts), answered by entrypoints/content.ts. */
  pointed: { args: Empty; result: { pointed: Pointed | null; refHigh: number } };
  /** The tab records (issue 42): this document reports the person's steps (lib/page/recorder.ts) until off; entrypoints/content.ts's own op. */
  record: { args: { on: boolean }; result: Empty };
}

/** A point (or a drag's two) on a cross-origin iframe element, in its frame's own viewport. */
export interface FrameHit {
  ref: string;
  x: number;
  y: number;
  endX?: number;
  endY?: number;
}

export interface ElementBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The visible part, clipped to the viewport. */
  visible: { x: number; y: number; width: number; height: number };
  dpr: number;
  viewportWidth: number;
  viewportHeight: number;
}

export interface PageMetrics {
  scrollX: number;
  scrollY: number;
  width: number;
  height: number;
  viewportWidth: number;
  viewportHeight: number;
  dpr: number;
}
export type CsOp = keyof CsOps;
export interface CsMessage<K extends CsOp = CsOp> {
  cs: true;
  op: K;
  args: CsOps[K]["args"];
}
export type CsReply<K extends CsOp = CsOp> = { ok: true; result: CsOps[K]["result"] } | { ok: false; error: string };
