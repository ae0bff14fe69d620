// The content script's request table: {op, args} → result, per
// docs/CONTRACTS.md ("Service worker ↔ content script"). Pure page logic,
// no extension APIs, so it is tested in a DOM environment.

import { pressKey } from "./keyboard";
import { click, drag, hover } from "./pointer";
import { scroll } from "./scroll";
import { selectOption } from "./select";
import { getText } from "./text";
import { typeText } from "./typing";
import { upload } from "./upload";
import { fillForm, type FillField } from "./fillform";
import { elementRect, pageMetrics, scrollToPoint } from "./geometry";
import { clickAt, dragAt } from "./xy";
import type { ConsoleBuffer } from "./console";
import { PageError, type RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";

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
}

/** Actions that may make the page load another document; their answer says whether one began. */
export const NAVIGATING_OPS: ReadonlySet<string> = new Set(["click", "type", "select", "press_key", "drag", "fill_form", "click_xy", "drag_xy"]);

/** The ops after which the page gets a moment to settle before the answer. */
export const SETTLING_OPS: ReadonlySet<string> = new Set([
  "click", "hover", "type", "select", "press_key", "scroll", "drag", "fill_form", "click_xy", "drag_xy", "settle",
]);

export type CsOp =
  | "snapshot" | "click" | "hover" | "type" | "select" | "press_key" | "scroll"
  | "drag" | "upload" | "get_text" | "console_logs"
  | "fill_form" | "click_xy" | "drag_xy" | "rect" | "metrics" | "scroll_to" | "settle";

/** A message from the service worker: {cs: true, op, args}. */
export interface CsMessage {
  cs: true;
  op: string;
  args?: Record<string, unknown>;
}

export type CsResponse = { ok: true; result: unknown } | { ok: false; error: string };

export function isCsMessage(msg: unknown): msg is CsMessage {
  return !!msg && typeof msg === "object" && (msg as CsMessage).cs === true && typeof (msg as CsMessage).op === "string";
}

function str(args: Record<string, unknown>, field: string): string {
  const v = args[field];
  if (typeof v !== "string" || v === "") throw new PageError(`${field} is missing; it must be a non-empty string`);
  return v;
}

function num(args: Record<string, unknown>, field: string): number {
  const v = args[field];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new PageError(`${field} is missing; it must be a number`);
  return v;
}

export async function handleOp(ctx: PageContext, op: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const stopWatching = NAVIGATING_OPS.has(op) ? ctx.watchNavigate?.() : undefined;
  let result: unknown;
  try {
    result = await runOp(ctx, op, args);
    // Only after an action that succeeded: a refused one changed nothing.
    if (ctx.settle && SETTLING_OPS.has(op)) await ctx.settle();
  } catch (e) {
    stopWatching?.();
    throw e;
  }
  if (stopWatching) {
    // Lets the service worker skip its grace period for a navigation when
    // the page saw none begin during the action and its settle.
    const navStarted = stopWatching();
    return { ...(result as Record<string, unknown>), navStarted };
  }
  return result;
}

async function runOp(ctx: PageContext, op: string, args: Record<string, unknown>): Promise<unknown> {
  switch (op) {
    case "snapshot": {
      ctx.refs.sweep();
      if (typeof args.refBase === "number") ctx.refs.advanceTo(args.refBase);
      const viewport: string[] = [];
      return {
        snapshot: buildSnapshot(ctx.doc, ctx.refs, { shadowRoot: ctx.shadowRoot, viewport }),
        viewport,
        refHigh: ctx.refs.high,
      };
    }
    case "click":
      await click(ctx.refs, str(args, "ref"));
      return {};
    case "hover":
      hover(ctx.refs, str(args, "ref"));
      return {};
    case "type":
      if (typeof args.text !== "string") throw new PageError("text is missing; it must be a string");
      await typeText(ctx.refs, { ref: str(args, "ref"), text: args.text, submit: args.submit === true });
      return {};
    case "select":
      if (!Array.isArray(args.values)) throw new PageError("values is missing; it must be a list of option values or labels");
      return selectOption(ctx.refs, { ref: str(args, "ref"), values: args.values as string[] });
    case "press_key":
      await pressKey(ctx.doc, str(args, "key"));
      return {};
    case "scroll":
      await scroll(ctx.refs, ctx.doc, {
        direction: args.direction as string | undefined,
        amount: args.amount as number | undefined,
        ref: typeof args.ref === "string" && args.ref !== "" ? args.ref : undefined,
      });
      return {};
    case "drag":
      await drag(ctx.refs, { startRef: str(args, "startRef"), endRef: str(args, "endRef") });
      return {};
    case "upload":
      if (typeof args.data !== "string") throw new PageError("data is missing; it must be the file's content in base64");
      upload(ctx.refs, {
        ref: str(args, "ref"),
        name: str(args, "name"),
        data: args.data,
        mimeType: typeof args.mimeType === "string" ? args.mimeType : undefined,
      });
      return {};
    case "get_text":
      return getText(ctx.refs, ctx.doc, { ref: typeof args.ref === "string" && args.ref !== "" ? args.ref : undefined });
    case "console_logs":
      return { logs: ctx.logs.list() };
    case "fill_form": {
      if (!Array.isArray(args.fields)) throw new PageError("fields is missing; it must be a list of {element, ref, value}");
      const fields: FillField[] = args.fields.map((f, i) => {
        const o = (f ?? {}) as Record<string, unknown>;
        if (typeof o.ref !== "string" || typeof o.value !== "string") {
          throw new PageError(`fields[${i}] needs a ref and a string value`);
        }
        return { ref: o.ref, value: o.value, element: typeof o.element === "string" ? o.element : undefined };
      });
      return fillForm(ctx.refs, fields);
    }
    case "click_xy":
      return clickAt(ctx.doc, {
        x: num(args, "x"),
        y: num(args, "y"),
        button: typeof args.button === "string" && args.button !== "" ? args.button : undefined,
        double: args.double === true,
      });
    case "drag_xy":
      return dragAt(ctx.doc, { startX: num(args, "startX"), startY: num(args, "startY"), endX: num(args, "endX"), endY: num(args, "endY") });
    case "rect":
      return elementRect(ctx.refs, str(args, "ref"), args.scroll !== false);
    case "metrics":
      return pageMetrics(ctx.doc);
    case "scroll_to":
      return scrollToPoint(ctx.doc, num(args, "x"), num(args, "y"));
    case "settle":
      // Nothing to do: handleOp settles after it (trusted input sent by the
      // service worker through the debugger).
      return {};
    default:
      throw new PageError(`unknown content-script op ${JSON.stringify(op)}`);
  }
}

/** Runs one message to a response; never throws. */
export async function respond(ctx: PageContext, msg: CsMessage): Promise<CsResponse> {
  try {
    const result = await handleOp(ctx, msg.op, msg.args ?? {});
    return { ok: true, result };
  } catch (err) {
    return { ok: false, error: errorText(msg.op, err) };
  }
}

export function errorText(op: string, err: unknown): string {
  if (err instanceof PageError) return err.message;
  const m = err instanceof Error ? err.message : String(err);
  return `${op} failed in the page: ${m}`;
}
