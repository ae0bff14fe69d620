// The site's own tools in the service worker (WebMCP, issue 43): listing
// asks every frame of a shared tab in its own main world (a cross-origin
// frame answers for itself); a call finds the tool again, checks its
// arguments against the tool's schema, asks the person in the popup when
// the consent rules say so (lib/sitetools.ts), runs it in its frame's
// document and masks the frame's secret values in the result. Everything
// goes through the share gate (executeInTab): nothing runs in a tab that is
// not shared at that moment.

import { afterEither, reported } from "../../lib/diag";
import { errorText } from "../../lib/peer";
import { KEY_ASKS, normalizeAsks, pendingAsks } from "../../lib/ask";
import { SITE_TOOL_ASK_WAIT_MS, SITE_TOOL_RUN_TIMEOUT_MS, type SiteTool, type SiteToolCallResult, type SiteToolsResult } from "../../lib/protocol.gen";
import {
  argumentProblems,
  consentOfAnswer,
  consentRule,
  frameOrigin,
  GrantList,
  KEY_SITE_ALLOWED,
  KEY_SITE_ASKS,
  KEY_SITE_GRANTS,
  maskedArgs,
  MAX_RESULT,
  MAX_TOOLS_PER_FRAME,
  normalizeSiteAsks,
  normalizeTool,
  withGrant,
  withoutGrant,
  type Answer,
  type Grant,
  type SiteAsk,
} from "../../lib/sitetools";
import { abortSiteToolInPage, listSiteToolsInPage, runSiteToolInPage, type PageRun, type PageTools } from "../../lib/page/webmcp";
import { contentOp, contentOpIn } from "./content-ops";
import { executeInTab } from "./gate";
import { within } from "./inject";
import { appendActivity, setAskBadge } from "./steer";
import { ruleForUrl } from "./siterules";
import { blockedFrames, chainRule, refusalFor } from "../../lib/worker/frame-rules";
import type { FrameInfo } from "../../lib/worker/frames";
import { refuse } from "../../lib/worker/asking";

const local = { get: (k: string) => chrome.storage.local.get(k), set: (items: Record<string, unknown>) => chrome.storage.local.set(items) };
const session = { get: (k: string) => chrome.storage.session.get(k), set: (items: Record<string, unknown>) => chrome.storage.session.set(items) };

/** "Always on this site" (per profile, until revoked) and this session's first-run allowances. */
const grants = new GrantList(local, KEY_SITE_GRANTS);
const allowed = new GrantList(session, KEY_SITE_ALLOWED);

/** How much longer than the page's own timeout the worker waits for a run. */
const RUN_GRACE_MS = 2000;

/** The longest listing waits for its frames. */
const LIST_TIMEOUT_MS = 5000;

interface Listed extends Omit<SiteToolsResult, "tabId"> {
  /** The document each tool's frame had when listed. */
  docs: Map<number, string | undefined>;
}

/**
 * Set when a listing found no WebMCP API in any frame that answered: the
 * API is the browser's (a feature), so until the worker restarts no
 * snapshot pays for asking again.
 */
let noApi = false;

/** Every frame's tools, top frame first. */
export async function listSiteTools(tabId: number): Promise<Listed> {
  if (noApi) return { tools: [], docs: new Map(), unsupported: true };

  const frames = ((await chrome.webNavigation.getAllFrames({ tabId })) ?? []) as FrameInfo[];
  // A frame the site rules keep from the AI (never; issue 44) is not asked for its tools.
  const kept = blockedFrames(frames, (url) => ruleForUrl(url));
  const where: chrome.scripting.InjectionTarget = kept.size === 0 ? { tabId, allFrames: true } : { tabId, frameIds: frames.filter((f) => !kept.has(f.frameId)).map((f) => f.frameId) };
  const results = await within(executeInTab({ target: where, world: "MAIN", func: listSiteToolsInPage, args: [MAX_TOOLS_PER_FRAME] }), LIST_TIMEOUT_MS, "late" as const);
  if (results === "late") throw new Error(`the page's frames did not list their tools within ${LIST_TIMEOUT_MS / 1000} s (a page script may be busy); try again`);
  const tools: SiteTool[] = [];
  const docs = new Map<number, string | undefined>();
  let api = false;
  let secure = false;
  const answered = new Set<number>();
  for (const r of [...results].sort((a, b) => a.frameId - b.frameId)) {
    const got = r.result as PageTools | undefined;
    answered.add(r.frameId);
    if (!got || typeof got !== "object") continue;
    if (got.api !== "none") api = true;
    if (got.secure === true) secure = true;
    const origin = frameOrigin(frames, r.frameId);
    docs.set(r.frameId, r.documentId);
    const names = new Set<string>();
    for (const raw of Array.isArray(got.tools) ? got.tools.slice(0, MAX_TOOLS_PER_FRAME) : []) {
      const t = normalizeTool(raw, r.frameId, origin);
      if (t && !names.has(t.name)) {
        names.add(t.name);
        tools.push(t);
      }
    }
  }
  const unread = frames.filter((f) => !answered.has(f.frameId) && !kept.has(f.frameId) && /^https?:/i.test(f.url)).length;
  const out: Listed = { tools, docs };
  if (!api && tools.length === 0) {
    out.unsupported = true;
    if (!secure) out.insecure = true;
  }
  // Only a secure frame without the API tells that the browser has none:
  // browsers offer it to secure contexts only, so a plain-http page says nothing of the browser.
  if (!api && secure) noApi = true;
  if (unread > 0) out.unread = unread;
  return out;
}

/**
 * How many tools the tab's frames offer, for the snapshot's line: each
 * frame answers from the count it kept since its last toolchange event
 * (lib/page/webmcp.ts), so a page whose tools did not change is not asked
 * to enumerate them again; no frame list is read. 0 when none or unknown.
 */
export async function countSiteTools(tabId: number): Promise<number> {
  if (noApi) return 0;
  const results = await within(
    executeInTab({ target: { tabId, allFrames: true }, world: "MAIN", func: listSiteToolsInPage, args: [MAX_TOOLS_PER_FRAME, true] }),
    LIST_TIMEOUT_MS,
    "late" as const,
  );
  if (results === "late") return 0;
  let n = 0;
  for (const r of results) {
    const got = r.result as PageTools | undefined;
    if (!got || typeof got !== "object" || typeof got.count !== "number" || !Number.isFinite(got.count)) continue;
    n += Math.min(Math.max(0, Math.floor(got.count)), MAX_TOOLS_PER_FRAME);
  }
  return n;
}

// ---- questions to the person -----------------------------------------------

let asksChain: Promise<unknown> = Promise.resolve();

function updateAsks(fn: (asks: SiteAsk[]) => SiteAsk[]): Promise<void> {
  const run = asksChain.then(async () => {
    const got = await chrome.storage.session.get(KEY_SITE_ASKS);
    await chrome.storage.session.set({ [KEY_SITE_ASKS]: fn(normalizeSiteAsks(got[KEY_SITE_ASKS])) });
  });
  asksChain = afterEither(run);
  return run;
}

/** The calls waiting for each question. */
const waiting = new Map<string, (a: Answer) => void>();

/** Whether the tab still has a question pending (ours or a hand-off's), for its "?" badge. */
async function tabStillAsks(tabId: number): Promise<boolean> {
  const got = await chrome.storage.session.get([KEY_SITE_ASKS, KEY_ASKS]);
  return normalizeSiteAsks(got[KEY_SITE_ASKS]).some((a) => a.tabId === tabId) || pendingAsks(normalizeAsks(got[KEY_ASKS])).some((a) => a.tabId === tabId);
}

/**
 * Shows the question in the popup (the "?" badge and the tab's neutral
 * notice point there) and waits for the answer: SITE_TOOL_ASK_WAIT_MS at
 * most; the call's cancel and the person's Stop end the wait (rejects).
 */
async function askPerson(q: SiteAsk, signal?: AbortSignal): Promise<Answer | "unanswered"> {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("the call was stopped");
  await updateAsks((asks) => [...asks, q]);
  void setAskBadge(q.tabId, true).catch(reported("site tools: the toolbar badge"));
  void contentOp(q.tabId, "ask_show", { askId: q.id }).catch(reported("site tools: showing the notice"));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<Answer | "unanswered">((resolve, reject) => {
      waiting.set(q.id, resolve);
      timer = setTimeout(() => resolve("unanswered"), SITE_TOOL_ASK_WAIT_MS);
      onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new Error("the call was stopped"));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    waiting.delete(q.id);
    await updateAsks((asks) => asks.filter((a) => a.id !== q.id)).catch(reported("site tools: taking the question down"));
    void contentOp(q.tabId, "ask_hide", { askId: q.id }).catch(reported("site tools: taking the notice down"));
    void tabStillAsks(q.tabId)
      .then((still) => (still ? undefined : setAskBadge(q.tabId, false)))
      .catch(reported("site tools: the toolbar badge"));
  }
}

const ANSWER_WORDS: Record<Answer, string> = { once: "Allow once", always: "Always on this site", deny: "Deny" };

/** The person's answer from the popup (an extension page: index.ts refuses it from any other sender). */
export async function answerSiteToolAsk(id: string, answer: Answer): Promise<void> {
  const got = await chrome.storage.session.get(KEY_SITE_ASKS);
  const q = normalizeSiteAsks(got[KEY_SITE_ASKS]).find((a) => a.id === id);
  if (!q) return;
  const g: Grant = { origin: q.origin, app: q.app, tool: q.tool, at: Date.now() };
  if (answer === "always") await grants.update((all) => withGrant(all, g));
  else if (answer === "once" && !q.consequential) await allowed.update((all) => withGrant(all, g));
  void appendActivity({
    at: Date.now(),
    app: q.app,
    tool: "browser_site_tool_call",
    verb: "asked you to allow a site tool",
    text: `${q.tool} on ${q.origin}: ${ANSWER_WORDS[answer]}`,
    tabId: q.tabId,
    outcome: "done",
  }).catch(reported("site tools: writing the activity log"));
  const wake = waiting.get(id);
  if (wake) wake(answer);
  else await updateAsks((asks) => asks.filter((a) => a.id !== id)); // its call is gone (the worker restarted)
}

/** Revokes an "Always on this site" (options page). */
export function revokeSiteGrant(g: Pick<Grant, "origin" | "app" | "tool">): Promise<void> {
  return Promise.all([grants.update((all) => withoutGrant(all, g)), allowed.update((all) => withoutGrant(all, g))]).then(() => undefined);
}

// ---- calling -----------------------------------------------------------------

export interface SiteCall {
  name: string;
  frame?: number;
  args: unknown;
}

function pick(listed: Listed, c: SiteCall): SiteTool {
  const same = listed.tools.filter((t) => t.name === c.name);
  const matches = c.frame === undefined ? same : same.filter((t) => t.frame === c.frame);
  if (matches.length === 1) return matches[0]!;
  if (listed.unsupported) throw new Error("this browser has no API for pages' own tools (WebMCP); it needs a Chromium with WebMCP (for now --enable-features=WebMCP)");
  if (matches.length > 1) {
    throw new Error(`frames ${matches.map((t) => `${t.frame} (${t.origin})`).join(", ")} each offer a tool with this name: call again with frame set to one of them`);
  }
  const where = c.frame === undefined ? "" : ` in frame ${c.frame}${same.length > 0 ? ` (it is in frame ${same.map((t) => t.frame).join(", ")})` : ""}`;
  const names = listed.tools.slice(0, 20).map((t) => t.name);
  throw new Error(
    `the page offers no tool with this name${where}; its tools now: ${names.length > 0 ? names.join(", ") : "none"}. Call browser_site_tools to see them`,
  );
}

/** Runs a site tool with the person's consent (the executor checked that the tab is shared). */
export async function callSiteTool(tabId: number, c: SiteCall, app: string, signal?: AbortSignal): Promise<Omit<SiteToolCallResult, "tabId">> {
  const listed = await listSiteTools(tabId);
  const tool = pick(listed, c);
  // A tool of a frame on a site stricter than the top page's (read only): refused like any action there (issue 44).
  const fr = chainRule(((await chrome.webNavigation.getAllFrames({ tabId })) ?? []) as FrameInfo[], tool.frame, (url) => ruleForUrl(url));
  const why = fr ? refusalFor(fr, "action", "use the site's own tool", `the site tool "${tool.name}"`) : undefined;
  if (why !== undefined) throw refuse(why);
  const schema = tool.inputSchema && typeof tool.inputSchema === "object" ? (tool.inputSchema as Record<string, unknown>) : undefined;
  const problems = argumentProblems(schema, c.args);
  if (problems.length > 0) {
    throw new Error(`the arguments do not fit the tool's input schema: ${problems.join("; ")}. Fix them (browser_site_tools shows the schema) and call again`);
  }
  const args = c.args as Record<string, unknown>;
  const key = { origin: tool.origin, app, tool: tool.name };
  let consent: string = consentRule(tool, await grants.has(key), await allowed.has(key));
  if (consent === "ask") {
    const q: SiteAsk = { id: crypto.randomUUID().replace(/-/g, "").slice(0, 12), tabId, app, tool: tool.name, origin: tool.origin, args: maskedArgs(args, 300), consequential: tool.consequential === true, created: Date.now() };
    if (tool.title) q.title = tool.title;
    const answer = await askPerson(q, signal);
    consent = consentOfAnswer(answer);
    if (answer === "deny" || answer === "unanswered") return { tool, consent };
  }
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("the call was stopped");
  const doc = listed.docs.get(tool.frame);
  const target: chrome.scripting.InjectionTarget = doc !== undefined ? { tabId, documentIds: [doc] } : { tabId, frameIds: [tool.frame] };
  const runId = crypto.randomUUID();
  const run = executeInTab({ target, world: "MAIN", func: runSiteToolInPage, args: [tool.name, args, SITE_TOOL_RUN_TIMEOUT_MS, MAX_RESULT, runId] });
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    if (!signal) return;
    onAbort = () => {
      reject(signal.reason instanceof Error ? signal.reason : new Error("the call was stopped"));
      // The page's tool is told too: the signal executeTool gave it fires.
      void executeInTab({ target, world: "MAIN", func: abortSiteToolInPage, args: [runId] }).catch(reported("site tools: telling the page's tool to stop"));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  let results: Awaited<typeof run> | "late";
  try {
    // The in-page timeout runs on the page's own timers, which a page can
    // break: the worker keeps its own bound.
    results = await Promise.race([within(run, SITE_TOOL_RUN_TIMEOUT_MS + RUN_GRACE_MS, "late" as const), stopped]);
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new Error(`the tool's frame could not run it (${errorText(e)}); the frame may have navigated: call browser_site_tools again`);
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  if (results === "late") {
    throw new Error(`the tool did not answer within ${SITE_TOOL_RUN_TIMEOUT_MS / 1000} s; it may still finish in the page: check it with browser_snapshot`);
  }
  const r = results[0]?.result as PageRun | undefined;
  if (!r) throw new Error("the tool's frame went away before it answered; call browser_site_tools again");
  if (!r.ok) throw new Error(r.timeout ? `${r.error}; it may still finish in the page: check it with browser_snapshot` : `the tool failed: ${r.error}`);
  const masked = await contentOpIn(tabId, { frameId: tool.frame, ...(doc !== undefined ? { documentId: doc } : {}) }, "mask_text", { text: r.result }).then(
    (m) => (typeof m?.text === "string" ? m.text : undefined),
    reported("site tools: masking the result"),
  );
  // Never unmasked: when the frame's content script cannot check it, the
  // result is withheld (the failure is in the diagnostics log).
  if (masked === undefined) {
    throw new Error("the tool ran, but its result could not be checked for secret values, so it is not shown; see the page with browser_snapshot");
  }
  return { tool, consent, result: masked, ...(r.cut ? { cut: true } : {}) };
}
