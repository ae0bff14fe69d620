// The MAIN-world hooks of a shared tab (entrypoints/page-hooks.content.ts
// installs them): console wrappers, error and rejection listeners, and
// alert/confirm/prompt answered without blocking. What they record is
// console.ts's entries.

import {
  channelOf,
  ConsoleBuffer,
  formatArgs,
  formatDialog,
  formatRejection,
  formatUncaught,
  isSecret,
  type ConsoleEntry,
  type DialogArm,
  type HookEntry,
  type PageDialog,
} from "./console";
import { trackPageWork } from "./pagework";
import { trackInternals } from "./internals";

/**
 * The hooks of one window. The object stays in the hooks' closure; the page
 * (and the service worker's scripts) reach them only through the control
 * function under CONTROL_KEY, whose controls need the channel's secret.
 */
export interface PageHooks {
  readonly buffer: ConsoleBuffer;
  /** Hooked (the tab is shared) or dormant (native functions back). */
  readonly active: boolean;
  /**
   * Hooks again, unless the hooks were put to sleep (the tab was unshared):
   * then it refuses, so a stale injection never wakes an unshared document.
   */
  activate(): void;
  deactivate(): void;
  /** A fresh share (inject.ts injectTab): clears the sleep and hooks again. */
  wake(): void;
  /** Sets (or clears, with null) the answer to the next dialog. */
  arm(a: DialogArm | null): void;
  /** Takes the pending answer if it has not expired (one dialog only). */
  takeArm(): DialogArm | null;
  /** For the next 10 s, beforeunload listeners do not run (an AI-requested navigation). */
  leaving(on: boolean): void;
}

/**
 * The window property holding the hooks' control function (not enumerable,
 * not configurable, not writable): control(secret, op, arg). Ops:
 * - "activate": hooks again unless put to sleep (a re-injection); no secret;
 * - "sleep": the tab was unshared: natives back; no secret (a page may only
 *   turn off its own hooks);
 * - "claim": takes the channel with a new secret (isSecret) and wakes the
 *   hooks: a fresh share or a new top document (inject.ts). Whoever claims
 *   last holds the channel: a page that claims gets its own console back and
 *   the service worker's next control fails (it is told false);
 * - "arm" (a DialogArm or null), "leaving", "take-arm" (same-origin frames
 *   take the top window's armed answer): only with the current secret;
 *   anything else answers false.
 */
export const CONTROL_KEY = "__monkbrowseControl";

/** The control function under CONTROL_KEY. */
export type HooksControl = (secret: unknown, op: unknown, arg?: unknown) => unknown;

/** How long an AI-requested navigation keeps beforeunload powerless. */
const LEAVING_MS = 10_000;

/**
 * For ms, preventDefault() and returnValue on beforeunload events do
 * nothing, so no "Leave site?" dialog can be asked for; then they work again.
 */
function neuterBeforeUnload(win: Window & typeof globalThis, ms: number): void {
  const proto = (win as unknown as { BeforeUnloadEvent?: { prototype: object } }).BeforeUnloadEvent?.prototype;
  if (!proto) return;
  const had = {
    preventDefault: Object.getOwnPropertyDescriptor(proto, "preventDefault"),
    returnValue: Object.getOwnPropertyDescriptor(proto, "returnValue"),
  };
  try {
    Object.defineProperty(proto, "preventDefault", { value: function preventDefault() {}, configurable: true, writable: true });
    Object.defineProperty(proto, "returnValue", { get: () => "", set: () => undefined, configurable: true });
  } catch {
    return;
  }
  win.setTimeout(() => {
    try {
      if (had.preventDefault) Object.defineProperty(proto, "preventDefault", had.preventDefault);
      else delete (proto as Record<string, unknown>).preventDefault;
      if (had.returnValue) Object.defineProperty(proto, "returnValue", had.returnValue);
      else delete (proto as Record<string, unknown>).returnValue;
    } catch {
      // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; the page redefined them unconfigurable: nothing to restore
    }
  }, ms);
}

/**
 * Installs the MAIN-world hooks on win: console wrappers, error and rejection
 * listeners, and alert/confirm/prompt answered without blocking (alert
 * acknowledged, confirm dismissed, prompt cancelled, unless an answer was
 * armed). `send` hands each entry on. Idempotent per window: a second call
 * returns the first hooks (reactivated, unless they were put to sleep: only
 * a fresh share's wake() hooks a dormant document again). Returns the hooks and whether they
 * were installed by this call.
 */
const installed = new WeakMap<object, PageHooks>();

export function installPageHooks(
  win: Window & typeof globalThis,
  send: (e: HookEntry) => void,
  nativeDialogs: () => boolean = () => false,
  onClaim: (secret: string) => void = () => undefined,
  onCapture: (el: Element, on: boolean) => void = () => undefined,
): { hooks: PageHooks | undefined; fresh: boolean } {
  const existing = (win as unknown as Record<string, unknown>)[CONTROL_KEY];
  if (typeof existing === "function") {
    // A second run of the hooks file (a new script instance): the first hooks serve on.
    (existing as HooksControl)(null, "activate");
    return { hooks: installed.get(win), fresh: false };
  }
  // The secret of the channel (set by a claim), and the top window's control for frames.
  let secret: string | null = null;
  const apply = Reflect.apply;
  const buffer = new ConsoleBuffer();
  let active = false;
  // Put to sleep by deactivate (the tab was unshared): only wake() hooks again.
  let slept = false;
  let armed: DialogArm | null = null;
  // Until when beforeunload listeners are skipped (an AI-requested navigation).
  let leavingUntil = 0;

  let busy = false;
  const record = (level: string, text: () => string, dialog?: PageDialog) => {
    if (busy) return; // formatting a value logged something: do not recurse
    busy = true;
    try {
      const e: ConsoleEntry = { level, text: text(), time: Date.now() };
      buffer.push(e);
      send(dialog ? { ...e, dialog } : e);
    } catch {
      // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; never break the page's console
    } finally {
      busy = false;
    }
  };

  // Same-origin frames answer with the top window's armed answer (one per tab).
  const takeArm = (): DialogArm | null => {
    if (win !== win.top) {
      try {
        const top = (win.top as unknown as Record<string, unknown> | null)?.[CONTROL_KEY];
        if (typeof top === "function" && secret !== null) {
          const a = apply(top as HooksControl, undefined, [secret, "take-arm"]) as DialogArm | null | false;
          return a ? a : null;
        }
      } catch {
        // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; a cross-origin top: this frame keeps its own
      }
    }
    return ownArm();
  };
  const ownArm = (): DialogArm | null => {
    const a = armed;
    armed = null;
    return a && a.expiresAt > Date.now() ? a : null;
  };

  const con = win.console as unknown as Record<string, (...a: unknown[]) => unknown>;
  // name → where, native, ours
  const swapped = new Map<string, { obj: Record<string, unknown>; key: string; orig: unknown; ours: unknown }>();
  const put = (obj: Record<string, unknown>, key: string, ours: unknown) => {
    const orig = obj[key];
    if (typeof orig !== "function") return;
    const name = obj === (win as unknown) ? key : obj === (con as unknown) ? `console.${key}` : `proto.${key}`;
    swapped.set(name, { obj, key, orig, ours });
    obj[key] = ours;
  };
  const nativeOf = (name: string) => swapped.get(name)?.orig as ((...a: unknown[]) => unknown) | undefined;
  let tracking = false;
  let internalsClaim: (ch: ReturnType<typeof channelOf>) => void = () => undefined;

  const install = () => {
    swapped.clear();
    for (const level of ["log", "info", "warn", "error", "debug"]) {
      const orig = con[level];
      if (typeof orig !== "function") continue;
      const wrapped = function (this: unknown, ...args: unknown[]) {
        if (active) record(level, () => formatArgs(args));
        return orig.apply(this, args);
      };
      try {
        Object.defineProperty(wrapped, "name", { value: level });
      } catch {
        // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; a non-configurable name: the wrapper works without it
      }
      put(con, level, wrapped);
    }
    const origAssert = con.assert;
    if (typeof origAssert === "function") {
      put(con, "assert", function (this: unknown, cond: unknown, ...args: unknown[]) {
        if (active && !cond) record("error", () => `Assertion failed${args.length ? `: ${formatArgs(args)}` : ""}`);
        return origAssert.call(this, cond, ...args);
      });
    }
    const w = win as unknown as Record<string, unknown>;
    // Dialogs never block a shared tab: a blocked page could not be driven at
    // all. What the page is told is the AI's decision (browser_handle_dialog),
    // never a silent "yes".
    // In the debugger mode, while the debugger is attached, dialogs go to
    // Chrome and the debugger answers them (Page.handleJavaScriptDialog).
    const viaDebugger = " (native, answered through the debugger)";
    put(w, "alert", function alert(this: unknown, message?: unknown) {
      if (!active) return nativeOf("alert")?.call(win, message);
      if (nativeDialogs()) {
        nativeOf("alert")?.call(win, message);
        record("dialog", () => formatDialog("alert", message, undefined) + viaDebugger);
        return;
      }
      const a = takeArm();
      const m = message === undefined ? "" : String(message);
      record("dialog", () => formatDialog("alert", message, undefined, undefined, a ? "armed" : "default"), {
        type: "alert", message: m, accepted: true, armed: !!a,
      });
    });
    put(w, "confirm", function confirm(this: unknown, message?: unknown) {
      if (!active) return nativeOf("confirm")?.call(win, message);
      if (nativeDialogs()) {
        const r = nativeOf("confirm")?.call(win, message);
        record("dialog", () => formatDialog("confirm", message, r) + viaDebugger);
        return r;
      }
      const a = takeArm();
      const ok = a ? a.accept : false;
      const m = message === undefined ? "" : String(message);
      record("dialog", () => formatDialog("confirm", message, ok, undefined, a ? "armed" : "default"), {
        type: "confirm", message: m, accepted: ok, armed: !!a,
      });
      return ok;
    });
    put(w, "prompt", function prompt(this: unknown, message?: unknown, defaultValue?: unknown) {
      if (!active) return nativeOf("prompt")?.call(win, message, defaultValue);
      if (nativeDialogs()) {
        const r = nativeOf("prompt")?.call(win, message, defaultValue);
        record("dialog", () => formatDialog("prompt", message, r ?? null, defaultValue ?? undefined) + viaDebugger);
        return r;
      }
      const a = takeArm();
      const dflt = defaultValue === undefined || defaultValue === null ? undefined : String(defaultValue);
      const result = a && a.accept ? (a.promptText ?? dflt ?? "") : null;
      const m = message === undefined ? "" : String(message);
      const d: PageDialog = { type: "prompt", message: m, accepted: result !== null, armed: !!a };
      if (result !== null) d.answer = result;
      record("dialog", () => formatDialog("prompt", message, result, dflt, a ? "armed" : "default"), d);
      return result;
    });
    // Pointer capture: Chromium ignores setPointerCapture during a synthetic
    // press, so the isolated world learns of the page's calls from here and
    // routes the drag's later events to the capturing element (gesture.ts).
    const elProto = win.Element?.prototype as unknown as Record<string, unknown> | undefined;
    for (const [key, on] of [["setPointerCapture", true], ["releasePointerCapture", false]] as const) {
      const orig = elProto?.[key];
      if (!elProto || typeof orig !== "function") continue;
      put(elProto, key, function (this: Element, ...args: unknown[]) {
        const r = apply(orig as (...a: unknown[]) => unknown, this, args);
        // onCapture dispatches an event: a listener's exception is reported, never thrown into the page's call.
        if (active) onCapture(this, on);
        return r;
      });
    }
    // The page's timers and requests started by an action (pagework.ts).
    trackPageWork(win, put, () => active, !tracking);
    tracking = true;
    // The roles and states components set through ElementInternals (internals.ts).
    internalsClaim = trackInternals(win, put);
  };

  win.addEventListener(
    "error",
    (ev: Event) => {
      if (!active) return;
      // Resource load errors (img, script) arrive here too but are not ErrorEvents.
      const e = ev as ErrorEvent;
      if (typeof e.message !== "string" && e.error === undefined) return;
      record("error", () => formatUncaught(e.message, e.error, e.filename, e.lineno, e.colno));
    },
    true,
  );
  win.addEventListener("unhandledrejection", (ev: PromiseRejectionEvent) => {
    if (active) record("error", () => formatRejection(ev.reason));
  });
  // A navigation the AI asked for is never held up by "Leave site?".
  win.addEventListener(
    "beforeunload",
    (ev: Event) => {
      if (active && Date.now() < leavingUntil) ev.stopImmediatePropagation();
    },
    true,
  );

  const hooks: PageHooks = {
    buffer,
    get active() {
      return active;
    },
    activate() {
      if (active || slept) return;
      active = true;
      install();
    },
    wake() {
      slept = false;
      hooks.activate();
    },
    deactivate() {
      slept = true;
      if (!active) return;
      active = false;
      armed = null;
      leavingUntil = 0;
      // Put the natives back where ours still stand; where the page wrapped
      // ours since, our wrapper stays but only passes through.
      for (const { obj, key, orig, ours } of swapped.values()) {
        if (obj[key] === ours) obj[key] = orig;
      }
    },
    arm(a) {
      armed = a && typeof a.expiresAt === "number" ? { accept: a.accept === true, promptText: typeof a.promptText === "string" ? a.promptText : undefined, expiresAt: a.expiresAt } : null;
    },
    takeArm: ownArm,
    leaving(on) {
      // Bounded: a navigation that never happens must not leave the
      // person's "Leave site?" protection off.
      leavingUntil = on === true ? Date.now() + LEAVING_MS : 0;
      if (on === true) {
        try {
          win.onbeforeunload = null;
        } catch {
          // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; the page made onbeforeunload unwritable: it then runs, and the navigation still goes on
        }
        // Listeners registered before ours still run (Chrome calls a
        // target's listeners in registration order): make what they do to
        // a beforeunload event powerless meanwhile.
        neuterBeforeUnload(win, LEAVING_MS);
      }
    },
  };
  const control: HooksControl = (key, op, arg) => {
    if (op === "activate") {
      hooks.activate();
      return true;
    }
    if (op === "sleep") {
      hooks.deactivate();
      return true;
    }
    if (op === "claim") {
      if (!isSecret(key)) return false;
      secret = key;
      hooks.wake();
      internalsClaim(channelOf(key));
      onClaim(key);
      return true;
    }
    if (secret === null || key !== secret) return false;
    if (op === "arm") {
      hooks.arm((arg ?? null) as DialogArm | null);
      return true;
    }
    if (op === "leaving") {
      hooks.leaving(true);
      return true;
    }
    if (op === "take-arm") return ownArm();
    return false;
  };
  try {
    Object.defineProperty(win, CONTROL_KEY, { value: control, enumerable: false, configurable: false, writable: false });
  } catch {
    // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log.
    // The page defined the property first (it ran before the hooks), or the window is frozen: no
    // claim can reach these hooks, so they send nothing (DESIGN §8).
  }
  installed.set(win, hooks);
  hooks.activate();
  return { hooks, fresh: true };
}
