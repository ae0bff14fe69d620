// Injection on demand: nothing of monkbrowse runs in a tab the person has not
// shared. When a tab is shared, the MAIN-world hooks (every frame) and the
// isolated content script (top frame) are injected into its current
// documents, and into every document the tab commits while it stays shared
// (webNavigation.onCommitted + executeScript with injectImmediately, the
// earliest per-tab path Chrome offers). Both run in every frame of the tab,
// cross-site iframes too (issue 26: frames.ts stitches their snapshots and
// routes their refs). Unsharing puts the hooks to sleep (the page's native
// functions back) and disposes the content script, in every frame.
//
// A page whose renderer is blocked (a native dialog opened before our hooks,
// a busy loop) answers no executeScript; every call here is bounded, and
// `probePage` is the probe the rest of the service worker uses to tell.

import { newSecret, type DialogArm } from "../../lib/page/console";
import { errorCode } from "../../lib/peer";
import { ERROR_CODES } from "../../lib/protocol.gen";
import { executeInTab } from "./gate";
import { reported } from "../../lib/diag";
import { createBusyWatch, within } from "../../lib/worker/blocked";

export { BlockedPage, blockedError, PROBE_AFTER_MS, within } from "../../lib/worker/blocked";

export const CONTENT_SCRIPT_FILE = "content-scripts/content.js";
export const PAGE_HOOKS_FILE = "content-scripts/page-hooks.js";

/** How long an injection may take before we stop waiting (the page is blocked or gone). */
const INJECT_TIMEOUT_MS = 3000;
/** How long the liveness probe waits for a trivial script to run. */
export const PROBE_TIMEOUT_MS = 3000;

type Target = chrome.scripting.InjectionTarget;

async function run(
  target: Target,
  spec: { world?: "MAIN" | "ISOLATED"; files?: string[]; func?: (...a: never[]) => unknown; args?: unknown[] },
  opts: { evenUnshared?: "to make it dormant" } = {},
): Promise<void> {
  await runFor(target, spec, opts);
}

/** run, answering what the script returned in the first frame that answered (undefined when none did). */
async function runFor(
  target: Target,
  spec: { world?: "MAIN" | "ISOLATED"; files?: string[]; func?: (...a: never[]) => unknown; args?: unknown[] },
  opts: { evenUnshared?: "to make it dormant" } = {},
): Promise<unknown> {
  const p = executeInTab(
    {
      target,
      world: (spec.world ?? "ISOLATED") as chrome.scripting.ExecutionWorld,
      injectImmediately: true,
      ...(spec.files ? { files: spec.files } : { func: spec.func as () => unknown, args: spec.args ?? [] }),
    } as chrome.scripting.ScriptInjection<unknown[], unknown>,
    opts,
  );
  return within(
    p.then(
      (results) => results[0]?.result,
      // a frame Chrome does not let us script (chrome://, the Web Store, an error page), or the tab is no longer shared
      reported(`inject: ${spec.files ? spec.files.join(", ") : "a function"} into tab ${target.tabId}`),
    ),
    INJECT_TIMEOUT_MS,
    undefined,
  );
}

// These run in the page (MAIN) or in our isolated world; self-contained.
// The hooks are reached through their control function (lib/page/page-hooks.ts
// CONTROL_KEY), whose controls need the tab's secret; the secret travels only
// in executeScript's args, which the page cannot see.
function claimInPage(secret: string): boolean {
  const c = (window as unknown as Record<string, unknown>).__monkbrowseControl;
  return typeof c === "function" && (c as (s: string, op: string) => unknown)(secret, "claim") === true;
}
function armInPage(secret: string, a: DialogArm | null): boolean {
  const c = (window as unknown as Record<string, unknown>).__monkbrowseControl;
  return typeof c === "function" && (c as (s: string, op: string, a: unknown) => unknown)(secret, "arm", a) === true;
}
function sleepInPage(): void {
  const c = (window as unknown as Record<string, unknown>).__monkbrowseControl;
  if (typeof c === "function") (c as (s: null, op: string) => unknown)(null, "sleep");
}
function leavingInPage(secret: string): boolean {
  const c = (window as unknown as Record<string, unknown>).__monkbrowseControl;
  return typeof c === "function" && (c as (s: string, op: string) => unknown)(secret, "leaving") === true;
}
function connectContentScript(secret: string): void {
  const g = globalThis as unknown as Record<string, { connect?: (s: string) => boolean } | undefined>;
  g.__monkbrowseContentScript?.connect?.(secret);
}
function disposeContentScript(): void {
  const g = globalThis as unknown as Record<string, { dispose?: () => void } | undefined>;
  try {
    g.__monkbrowseContentScript?.dispose?.();
  } catch {
    // silent: runs inside the page (executeScript func), where the diagnostics log cannot be reached; the old extension context is gone
  }
  delete g.__monkbrowseContentScript;
}

/**
 * The secret of each shared tab's channel between the hooks and the content
 * script (lib/page/console.ts channelOf): new at each share and at each
 * document the top frame commits; forgotten at unshare.
 */
const secrets = new Map<number, string>();

/** The tab's secret, a new one when it has none (a fresh share, or the worker restarted). */
function secretOf(tabId: number): { secret: string; fresh: boolean } {
  const had = secrets.get(tabId);
  if (had) return { secret: had, fresh: false };
  const secret = newSecret();
  secrets.set(tabId, secret);
  return { secret, fresh: true };
}

/** Claims the hooks of target with the tab's secret and connects its content scripts to them. */
async function claim(target: Target, secret: string): Promise<void> {
  await run(target, { world: "MAIN", func: claimInPage, args: [secret] });
  await run(target, { func: connectContentScript, args: [secret] });
}

/**
 * Injects into a tab that was just shared: hooks, then the content script,
 * into every frame's current document, each pair joined by the tab's secret.
 * arm: a pending browser_handle_dialog answer (top frame only).
 */
export async function injectTab(tabId: number, arm: DialogArm | null): Promise<void> {
  const secret = newSecret();
  secrets.set(tabId, secret);
  await run({ tabId, allFrames: true }, { world: "MAIN", files: [PAGE_HOOKS_FILE] });
  // Hooks put to sleep by an earlier unshare refuse activate(); the claim of a fresh share wakes them.
  await run({ tabId, allFrames: true }, { world: "MAIN", func: claimInPage, args: [secret] });
  if (arm) await run({ tabId, frameIds: [0] }, { world: "MAIN", func: armInPage, args: [secret, arm] });
  await run({ tabId, allFrames: true }, { files: [CONTENT_SCRIPT_FILE] });
  await run({ tabId, allFrames: true }, { func: connectContentScript, args: [secret] });
}

/** Injects into one document a shared tab has just committed. */
export async function injectDocument(
  d: { tabId: number; frameId: number; parentFrameId?: number; documentId?: string },
  arm: DialogArm | null,
): Promise<void> {
  // Targeting the document (not the frame) makes sure a later document of the
  // frame is never mistaken for this one.
  const target: Target = d.documentId ? { tabId: d.tabId, documentIds: [d.documentId] } : { tabId: d.tabId, frameIds: [d.frameId] };
  const outermost = d.frameId === 0 || d.parentFrameId === -1;
  // A new top document gets a new secret; its frames' documents share it.
  if (outermost) secrets.set(d.tabId, newSecret());
  const { secret } = secretOf(d.tabId);
  await run(target, { world: "MAIN", files: [PAGE_HOOKS_FILE] });
  await run(target, { world: "MAIN", func: claimInPage, args: [secret] });
  if (arm && outermost) await run(target, { world: "MAIN", func: armInPage, args: [secret, arm] });
  // Every frame's document gets the content script (issue 26), not only the top one.
  await run(target, { files: [CONTENT_SCRIPT_FILE] });
  await run(target, { func: connectContentScript, args: [secret] });
}

/** A tab was unshared: native functions back in every frame, the content script gone from every frame. */
export async function makeDormant(tabId: number): Promise<void> {
  secrets.delete(tabId);
  await run({ tabId, allFrames: true }, { world: "MAIN", func: sleepInPage }, { evenUnshared: "to make it dormant" });
  await run({ tabId, allFrames: true }, { func: disposeContentScript }, { evenUnshared: "to make it dormant" });
}

/** The tab's secret, claiming its hooks again first when the worker lost it (a restart). */
async function liveSecret(tabId: number): Promise<string> {
  const { secret, fresh } = secretOf(tabId);
  if (fresh) await claim({ tabId, allFrames: true }, secret);
  return secret;
}

/**
 * Runs a control of the tab's hooks (func gets the secret first). When the
 * top frame's hooks refuse the secret (the page claimed them, or a share
 * raced a navigation), claims them and connects the content script again
 * with a new secret, and runs the control once more.
 */
async function control(tabId: number, target: Target, func: (secret: string, ...a: never[]) => boolean, args: unknown[]): Promise<void> {
  const secret = await liveSecret(tabId);
  if ((await runFor(target, { world: "MAIN", func, args: [secret, ...args] })) !== false) return;
  const fresh = newSecret();
  secrets.set(tabId, fresh);
  await claim({ tabId, allFrames: true }, fresh);
  await run(target, { world: "MAIN", func, args: [fresh, ...args] });
}

/** Sets (or clears) the answer to the next dialog in the tab's top frame (same-origin frames share it). */
export async function armTab(tabId: number, arm: DialogArm | null): Promise<void> {
  await control(tabId, { tabId, frameIds: [0] }, armInPage, [arm]);
}

/** Sets (or clears) it in one frame document's hooks instead (an action the AI takes in that frame: frames.ts). */
export async function armDocument(tabId: number, documentId: string, arm: DialogArm | null): Promise<void> {
  await control(tabId, { tabId, documentIds: [documentId] }, armInPage, [arm]);
}

/** Before a navigation the AI asked for: beforeunload listeners do not run (for 10 s). */
export async function beforeLeaving(tabId: number): Promise<void> {
  await control(tabId, { tabId, allFrames: true }, leavingInPage, []);
}

/**
 * What a tab's top frame did with a trivial script within PROBE_TIMEOUT_MS:
 * - "ran": the page runs our scripts;
 * - "refused": Chrome rejected the script (a page it does not let us script:
 *   chrome://, the Web Store, an error page; or the tab is gone). Chrome
 *   answered, so the page is not blocked: there is just nothing of ours there;
 * - "silent": no answer at all: the renderer is blocked, most likely by a
 *   native dialog, or busy.
 */
export type PageProbe = "ran" | "refused" | "silent";

/** The one page probe (see PageProbe); responsive() and history navigation read it. */
export async function probePage(tabId: number): Promise<PageProbe> {
  let unshared: unknown;
  const p = executeInTab({ target: { tabId, frameIds: [0] }, func: () => true, injectImmediately: true }).then(
    (): PageProbe => "ran",
    (e: unknown): PageProbe => {
      if (errorCode(e) === ERROR_CODES.unshared) unshared = e;
      return "refused";
    },
  );
  const r = await within(p, PROBE_TIMEOUT_MS, "silent" as const);
  // Not shared any more: the call stops here (never Chrome's history on an unshared tab).
  if (unshared !== undefined) throw unshared;
  return r;
}

/**
 * Whether the tab's top frame is not blocked: it ran the probe or Chrome
 * refused it ("refused" is Chrome's answer, not a blocked page's silence).
 */
export async function responsive(tabId: number): Promise<boolean> {
  return (await probePage(tabId)) !== "silent";
}

const busy = createBusyWatch();

/** The content script of tabId began a long synchronous job (a snapshot of a huge page). */
export function noteBusy(tabId: number, now = Date.now()): void {
  busy.noteBusy(tabId, now);
}

/** Waits for work; a page that answers neither it nor the probe fails it (lib/worker/blocked.ts). */
export function unlessBlocked<T>(tabId: number, work: Promise<T>, probe: (tabId: number) => Promise<boolean> = responsive): Promise<T> {
  return busy.unlessBlocked(tabId, work, probe);
}
