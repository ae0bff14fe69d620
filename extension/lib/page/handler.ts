// The content script's side of the service worker ↔ content script bridge
// (docs/CONTRACTS.md): one handler per op of lib/messages.ts's CsOps table,
// which types both ends. Pure page logic, no extension APIs, so it is tested
// in a DOM environment.

import type { CsOp, CsOps, CsReply, Empty } from "../messages";
import { errorText } from "../peer";
import type { ConsoleBuffer } from "./console";
import { maskSecretsIn, secretBoxes } from "./secret";
import { fillForm } from "./fillform";
import { byRef, crossOriginFrames, postLinkTokens, postTokens, tokenSource } from "./framelink";
import { elementRect, pageMetrics, scrollToPoint } from "./geometry";
import { pressKey } from "./keyboard";
import { beginTrustedClick, click, drag, endTrustedClick, hover } from "./pointer";
import { PageError, type RefRegistry } from "./refs";
import { scroll } from "./scroll";
import { selectOption } from "./select";
import { buildSnapshot } from "./snapshot";
import { describeTargets } from "./target";
import { getText } from "./text";
import { watchPageEffects } from "./effect";
import { typeText } from "./typing";
import { upload } from "./upload";
import { clickAt, dragAt } from "./xy";
import { NO_INTERNALS, type InternalsReader } from "./internals";
import { stashCandidates, withChromiumAx } from "./axhints";

export interface PageContext {
  doc: Document;
  refs: RefRegistry;
  logs: ConsoleBuffer;
  /** Shadow-root getter for snapshots (closed roots through chrome.dom in the extension). */
  shadowRoot?: (el: Element) => ShadowRoot | null;
  /**
   * Waits for the page to settle after an action that may change it, before
   * the answer (settle.ts's settleDom in the extension; tests leave it out).
   */
  settle?: () => Promise<unknown>;
  /**
   * Starts noticing navigations this document begins (the Navigation API's
   * navigate event); the returned function stops and says whether one began.
   * Undefined where the page cannot tell (no Navigation API, data: URLs).
   */
  watchNavigate?: () => (() => boolean) | undefined;
  /**
   * A reader of ElementInternals for one snapshot, over the channel to the
   * MAIN-world hooks (internals.ts channelReader); undefined in tests.
   */
  internals?: () => InternalsReader;
}

/**
 * The ops this module answers (native_dialogs is content.ts's own: it only
 * relays to the MAIN-world hooks; so is frame_link: it reads the frame's link inbox;
 * so are ask_show and ask_hide: the hand-off banner talks to the extension).
 */
export type PageOp = Exclude<CsOp, "native_dialogs" | "frame_link" | "ask_show" | "ask_hide" | "pointed" | "record">;

/** Actions that may make the page load another document; their answer says whether one began. */
export const NAVIGATING_OPS: ReadonlySet<CsOp> = new Set(["click", "type", "select", "press_key", "drag", "fill_form", "click_xy", "drag_xy"]);

/** The ops after which the page gets a moment to settle before the answer. */
export const SETTLING_OPS: ReadonlySet<CsOp> = new Set([
  "click", "hover", "type", "select", "press_key", "scroll", "drag", "fill_form", "click_xy", "drag_xy", "settle",
]);

/**
 * The actions whose answer says when the page showed no effect (unchanged:
 * no DOM, focus, value, selection, scroll, canvas or address change by the
 * end of the settle): synthetic keys and pointer input an app may ignore.
 */
export const EFFECT_WATCHED_OPS: ReadonlySet<CsOp> = new Set(["press_key", "type", "drag", "click_xy", "drag_xy"]);

/** Awaits an action that answers nothing but its notes (PageNotes). */
async function done(action: unknown): Promise<Empty> {
  await action;
  return {};
}

type Handlers = { [K in PageOp]: (ctx: PageContext, args: CsOps[K]["args"]) => Promise<CsOps[K]["result"]> };

// The service worker checked every field against the wire request before
// sending (lib/executor.ts); the table's types hold it to that.
const handlers: Handlers = {
  snapshot: async (ctx, { refBase, stopAfterChars, linkTokens, refMarks, ax }) => {
    ctx.refs.sweep();
    if (typeof refBase === "number") ctx.refs.advanceTo(refBase);
    const viewport: string[] = [];
    const limit = typeof stopAfterChars === "number" && stopAfterChars > 0 ? { chars: stopAfterChars, stopped: false } : undefined;
    const crossOrigin: Element[] = [];
    const token = tokenSource(linkTokens);
    // The light DOM's cross-origin frames get their tokens first, so those
    // frames (asked by the service worker meanwhile) read themselves while
    // this document is read; those in shadow roots once the walk met them.
    const early = postTokens(crossOriginFrames(ctx.doc), token);
    const marks: number[] = [];
    const hooks = ctx.internals?.();
    // Chromium's additions (debugger mode) go under the hooks' reading.
    const internals = ax ? withChromiumAx(hooks ?? NO_INTERNALS, ax) : hooks;
    const snapshot = buildSnapshot(ctx.doc, ctx.refs, { shadowRoot: ctx.shadowRoot, viewport, limit, crossOrigin, marks, allMarks: refMarks === true, internals });
    const late = postTokens(crossOrigin.filter((el) => !early.has(el)), token);
    // By ref after the walk, so the iframe lines have their refs in page order.
    const links = byRef(new Map([...early, ...late]), ctx.refs);
    return { snapshot, viewport, refHigh: ctx.refs.high, marks, ...(limit?.stopped ? { limited: true } : {}), ...(Object.keys(links).length > 0 ? { links } : {}) };
  },
  ax_candidates: async (ctx) =>
    stashCandidates(ctx.doc, ctx.internals?.() ?? NO_INTERNALS, ctx.shadowRoot ?? ((el) => (el as HTMLElement).shadowRoot ?? null)),
  click: (ctx, { ref }) => done(click(ctx.refs, ref, ctx.settle)),
  hover: (ctx, { ref }) => done(hover(ctx.refs, ref)),
  type: (ctx, args) => done(typeText(ctx.refs, args)),
  select: async (ctx, args) => selectOption(ctx.refs, args),
  press_key: (ctx, { key }) => done(pressKey(ctx.doc, key)),
  scroll: (ctx, args) => done(scroll(ctx.refs, ctx.doc, args)),
  drag: (ctx, args) => done(drag(ctx.refs, args)),
  upload: (ctx, args) => done(upload(ctx.refs, args)),
  get_text: async (ctx, args) => getText(ctx.refs, ctx.doc, args),
  // A page that logs a field's value (console.log(pw.value)) does not pass a secret on.
  console_logs: async (ctx) => ({ logs: ctx.logs.list().map((e) => ({ ...e, text: maskSecretsIn(ctx.doc, e.text) })) }),
  // A site tool's result may quote a field's value (issue 43).
  mask_text: async (ctx, { text }) => ({ text: maskSecretsIn(ctx.doc, typeof text === "string" ? text : "") }),
  fill_form: async (ctx, { fields }) => fillForm(ctx.refs, fields),
  click_xy: async (ctx, args) => clickAt(ctx.doc, ctx.refs, args),
  drag_xy: async (ctx, args) => dragAt(ctx.doc, ctx.refs, args),
  rect: async (ctx, { ref, scroll, content }) => elementRect(ctx.refs, ref, scroll !== false, content === true),
  frame_tokens: async (ctx, { ref }) => ({ links: postLinkTokens(ctx.doc, ctx.refs, typeof ref === "string" ? [ctx.refs.resolve(ref)] : []) }),
  metrics: async (ctx) => pageMetrics(ctx.doc),
  secret_boxes: async (ctx) => ({ boxes: secretBoxes(ctx.doc, ctx.shadowRoot ?? ((el) => (el as HTMLElement).shadowRoot ?? null)), scrollX: ctx.doc.defaultView?.scrollX ?? 0, scrollY: ctx.doc.defaultView?.scrollY ?? 0 }),
  scroll_to: async (ctx, { x, y }) => scrollToPoint(ctx.doc, x, y),
  describe: async (ctx, { refs }) => describeTargets(ctx.refs, refs),
  focus: async (ctx) => ({ focused: ownsFocus(ctx.doc) }),
  // Nothing to do: handleOp settles after it (trusted input sent by the
  // service worker through the debugger).
  settle: async () => ({}),
  click_check: async (ctx, { ref, scroll }) => beginTrustedClick(ctx.refs, ref, scroll !== false),
  // Settles itself, before the verdict (so it is not in SETTLING_OPS).
  click_effect: (ctx, { ref }) => done(endTrustedClick(ref, ctx.settle)),
};

/** Whether doc has the focus and its focused element is not a frame (whose own document has it then). */
export function ownsFocus(doc: Document): boolean {
  if (!doc.hasFocus()) return false;
  const a = doc.activeElement;
  if (!a) return true;
  const t = a.tagName.toLowerCase();
  return t !== "iframe" && t !== "frame";
}

function isPageOp(op: string): op is PageOp {
  return Object.hasOwn(handlers, op);
}

/** A message from the service worker: {cs: true, op, args}; respond checks the op. */
export interface RawCsMessage {
  cs: true;
  op: string;
  args?: unknown;
}

export function isCsMessage(msg: unknown): msg is RawCsMessage {
  return !!msg && typeof msg === "object" && (msg as RawCsMessage).cs === true && typeof (msg as RawCsMessage).op === "string";
}

export async function handleOp<K extends PageOp>(ctx: PageContext, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  const stopWatching = NAVIGATING_OPS.has(op) ? ctx.watchNavigate?.() : undefined;
  const effects = EFFECT_WATCHED_OPS.has(op) ? watchPageEffects(ctx.doc) : null;
  let result: CsOps[K]["result"];
  let changed = true;
  try {
    try {
      result = await handlers[op](ctx, args);
      // Only after an action that succeeded: a refused one changed nothing,
      // and one sent on into a frame (into) did nothing here.
      if (ctx.settle && SETTLING_OPS.has(op) && !(result as { into?: unknown }).into) await ctx.settle();
    } finally {
      if (effects) changed = effects.stop();
    }
  } catch (e) {
    stopWatching?.();
    throw e;
  }
  const into = (result as { into?: unknown }).into !== undefined;
  // Lets the service worker skip its grace period for a navigation when
  // the page saw none begin during the action and its settle.
  const nav = stopWatching ? stopWatching() : undefined;
  let out: CsOps[K]["result"] = result;
  if (nav !== undefined) out = { ...out, navStarted: nav };
  if (!changed && !into && nav !== true) out = { ...out, unchanged: true };
  return out;
}

/** Runs one message to a response; never throws. */
export async function respond(ctx: PageContext, msg: RawCsMessage): Promise<CsReply> {
  try {
    if (!isPageOp(msg.op)) throw new PageError(`unknown content-script op ${JSON.stringify(msg.op)}`);
    // The sender is this extension's service worker (content scripts get no
    // other runtime messages), which builds args from the same table.
    return { ok: true, result: await handleOp(ctx, msg.op, (msg.args ?? {}) as CsOps[PageOp]["args"]) };
  } catch (err) {
    return { ok: false, error: err instanceof PageError ? err.message : `${msg.op} failed in the page: ${errorText(err)}` };
  }
}
