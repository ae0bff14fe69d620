// The executor of wire requests (DESIGN §5.1): resolves the tab, refuses
// tabs the person did not share and pages Chrome does not let extensions
// touch, then does the work through a BrowserPort. The port is implemented
// with Chrome APIs in entrypoints/background/; tests use a fake.

import type { ActionOp, CsOp, CsOps, PageNotes } from "./messages";
import { CodedError, errorText } from "./peer";
import { ASK_MAX_WAIT_MS, ERROR_CODES, REQUEST_APP_FIELD, WIRE_TYPES } from "./protocol.gen";
import type { AskEndResult, AskResult, Dialog, GetSelectionResult, SiteToolCallResult, SiteToolsResult, PersonEdit, DownloadsRequest, ScreenshotResult, DownloadsResult, NetworkRequestsResult, TabInfo, TabResult, WireRequests, WireResponses, WireType } from "./protocol.gen";
import { DEFAULT_NAV_TIMING, isLostReply, NavigationWatch, type NavTiming, type WatchNavigation } from "./navigation";
import { navigableReason, normalizeUrl, restrictedReason } from "./urls";
import type { Consent, Shares } from "./storage";
import { shotOptions, type ShotOptions } from "./shot-size";
import { normalizeRecordings } from "./recordings";
import { toPlaywrightTest } from "./recording-export";
import { isAskId } from "./ask";

export interface TabLike {
  id: number;
  windowId: number;
  url: string;
  title: string;
  active: boolean;
}

/** A screenshot as the wire answers it (ScreenshotResult without tabId). */
export type Shot = Omit<ScreenshotResult, "tabId">;

export interface BrowserPort {
  ownExtensionId?: string;
  getTab(tabId: number): Promise<TabLike | undefined>;
  /** The active tab of the last-focused normal window. */
  activeTab(): Promise<TabLike | undefined>;
  getShares(): Promise<Shares>;
  /** What the person allows in this profile (options page, "For this Chrome profile"). */
  getConsent(): Promise<Consent>;
  /** Shares a tab and returns its slot (idempotent). */
  share(tabId: number): Promise<number>;
  /** Loads url and waits for the new page's load (bounded; signal stops the wait). */
  navigate(tabId: number, url: string, signal?: AbortSignal): Promise<void>;
  history(tabId: number, what: "back" | "forward" | "reload", signal?: AbortSignal): Promise<void>;
  /**
   * Calls listener with the tab's main-frame navigation events (see
   * navigation.ts) until the returned function is called. Listening has
   * begun when it returns.
   */
  watchNavigation: WatchNavigation;
  /** Sends one op to the tab's content script (injecting it if needed). */
  content<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]>;
  /** The highest snapshot ref handed out in this tab so far, across its documents (0 when none). */
  refBase(tabId: number): Promise<number>;
  saveRefBase(tabId: number, high: number): Promise<void>;
  /** Captures the tab's visible area (restoring the person's active tab), scaled and encoded per o. */
  screenshot(tab: TabLike, o: ShotOptions): Promise<Shot>;
  /** One element (by ref), cropped; a note when only part of it is visible. */
  screenshotElement(tab: TabLike, ref: string, o: ShotOptions): Promise<Shot>;
  /** The whole page, stitched from viewport captures (bounded). */
  screenshotFullPage(tab: TabLike, o: ShotOptions): Promise<Shot>;
  /** The tab's requests since its page loaded (lib/netlog.ts). */
  network(tabId: number, opts: { filter?: string; since?: number; includeBodies?: boolean }): Promise<Omit<NetworkRequestsResult, "tabId">>;
  /** Downloads of shared tabs, optionally waiting for one to finish. */
  downloads(req: DownloadsRequest): Promise<DownloadsResult>;
  /** Saves the page as PDF (debugger mode); the file's path and size. */
  pdf(tab: TabLike): Promise<{ path: string; size: number }>;
  evaluate(tabId: number, expression: string): Promise<unknown>;
  /** Opens a tab and waits for its load. */
  openTab(url: string): Promise<TabLike>;
  /** Activates a tab and focuses its window. */
  activate(tab: TabLike): Promise<void>;
  closeTab(tabId: number): Promise<void>;
  /** Sets the answer to the tab's next dialog (browser_handle_dialog). */
  armDialog(tabId: number, answer: { accept: boolean; promptText?: string }): Promise<unknown>;
  /** Shows the AI's request to the person in the tab and the popup; waits up to waitMs for the answer (background/ask.ts). */
  ask(tabId: number, message: string, app: string, waitMs: number, signal?: AbortSignal, askId?: string): Promise<AskResult>;
  /** Waits up to waitMs more for a request's answer. */
  askWait(askId: string, waitMs: number, signal?: AbortSignal): Promise<AskResult>;
  /** Ends a request nothing waits for any more (the server's ask_end). */
  askEnd(askId: string, why: string): Promise<AskEndResult>;
  /** The person's own edits of the tab after since (issue 29, background/person.ts); none without since. */
  personEdits(tabId: number, since: number | undefined): Promise<{ seq: number; edits: PersonEdit[] }>;
  /** What the person last pointed at in the tab with "Show this to the AI". */
  pointed(tabId: number): Promise<Omit<GetSelectionResult, "tabId">>;
  /** The stored recordings (KEY_RECORDINGS in chrome.storage.local), as stored: normalised here. */
  recordings?(): Promise<unknown>;
  /** The tools the tab's frames offer (WebMCP, issue 43; background/sitetools.ts). Absent: none. */
  siteTools?(tabId: number): Promise<Omit<SiteToolsResult, "tabId">>;
  /** How many of them, for the snapshot's line: may answer from the frames' kept counts. Absent: siteTools is counted. */
  siteToolCount?(tabId: number): Promise<number>;
  /** Runs one of them with the person's consent. */
  siteToolCall?(tabId: number, call: { name: string; frame?: number; args: unknown }, app: string, signal?: AbortSignal): Promise<Omit<SiteToolCallResult, "tabId">>;
}

/** The dialogs an answer from the page reports, checked (the page's renderer may be compromised). */
function dialogsOf(r: PageNotes | undefined): { dialogs?: Dialog[] } {
  const out: Dialog[] = [];
  for (const x of Array.isArray(r?.dialogs) ? r.dialogs : []) {
    if (!x || typeof x !== "object" || typeof x.type !== "string" || typeof x.message !== "string") continue;
    const one: Dialog = { type: x.type, message: x.message, accepted: x.accepted === true, armed: x.armed === true };
    if (typeof x.answer === "string") one.answer = x.answer;
    out.push(one);
  }
  return out.length > 0 ? { dialogs: out } : {};
}

/**
 * The note of an action whose synthetic input left the page unchanged
 * (PageNotes.unchanged): said, never a silent success; with the debugger
 * mode off, the switch that sends real input is named.
 */
export const UNCHANGED_NOTE =
  "The page showed no change after it (no change to the DOM, focus, values, selection, scroll, canvas or address by the time it settled). " +
  "If you expected one, the app may have ignored this synthetic input: do not assume it took effect; check with browser_snapshot or browser_screenshot.";
export const UNCHANGED_DEBUGGER_HINT =
  ' Some apps act only on real input: the person can switch on "Use Chrome\'s debugger" in the monkbrowse options (For this Chrome profile), which sends real keyboard and mouse input.';

/** The refusal of browser_evaluate while the person has not switched JavaScript on for this profile. */
export const EVALUATE_OFF_ERROR =
  'browser_evaluate is switched off in this browser profile: the person has not allowed the AI to run JavaScript in its tabs. ' +
  'Read the page with browser_snapshot or browser_get_text instead, or ask the person to switch on ' +
  '"Let the AI run JavaScript in shared tabs" (monkbrowse extension options, section "For this Chrome profile", or the monkbrowse popup), then call it again.';

export function notSharedError(tabId: number): Error {
  return new CodedError(ERROR_CODES.not_shared, `tab ${tabId} is not shared with the AI; the user can share it from the monkbrowse popup`);
}

/** Chrome's own refusal of a tab id that names no tab ("No tab with id: 123."). */
const chromeNoTab = /\bNo tab with id: ?([0-9]+)\b/g;

/**
 * tabGoneCode gives Chrome's refusal of the request's own tab the code
 * tab_gone. Chrome's words are read here, in the process that got them, so
 * the server decides on the code and never on wording.
 */
function tabGoneCode(e: unknown, tabId: unknown): unknown {
  if (e instanceof CodedError || typeof tabId !== "number") return e;
  const text = errorText(e);
  for (const m of text.matchAll(chromeNoTab)) {
    if (Number(m[1]) === tabId) return new CodedError(ERROR_CODES.tab_gone, text);
  }
  return e;
}

function isRecord(p: unknown): p is Record<string, unknown> {
  return typeof p === "object" && p !== null && !Array.isArray(p);
}

const asRecord = (p: unknown): Record<string, unknown> => (isRecord(p) ? p : {});

/** A wire request's payload as it arrives: the fields of its generated type, each still to be checked. */
type Unchecked<T> = { [F in keyof T]?: unknown };

/** One handler per wire type, from its payload to its result (protocol.gen.ts). */
type WireHandlers = { [K in WireType]: (p: Unchecked<WireRequests[K]>, signal?: AbortSignal) => Promise<WireResponses[K]> };

function isWireType(type: string): type is WireType {
  return WIRE_TYPES.some((t) => t === type);
}

function optionalTabId(p: { tabId?: unknown }): number | undefined {
  const v = p.tabId;
  if (v === undefined || v === null || v === 0) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new Error(`tabId must be a positive integer (got ${JSON.stringify(v)})`);
  return v;
}

function requireString<T>(p: Unchecked<T>, field: keyof T & string): string {
  const v = p[field];
  if (typeof v !== "string" || v === "") throw new Error(`${field} is required and must be a non-empty string`);
  return v;
}

function requireNumber<T>(p: Unchecked<T>, field: keyof T & string): number {
  const v = p[field];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${field} is required and must be a number`);
  return v;
}

function requireTabId(p: { tabId?: unknown }): number {
  const v = p.tabId;
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) throw new Error("tabId is required and must be a positive integer");
  return v;
}

function oneOf<V extends string>(field: string, v: unknown, allowed: readonly V[]): V {
  const hit = allowed.find((a) => a === v);
  if (hit === undefined) throw new Error(`${field} must be ${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)} (got ${JSON.stringify(v)})`);
  return hit;
}

export class Executor {
  private readonly navTiming: NavTiming;

  constructor(
    private readonly port: BrowserPort,
    opts: { navTiming?: Partial<NavTiming> } = {},
  ) {
    this.navTiming = { ...DEFAULT_NAV_TIMING, ...opts.navTiming };
  }

  /** Resolves a shared tab: the given one, else the active tab if it is shared. */
  async resolveTab(tabId: number | undefined, opts: { allowRestricted?: boolean } = {}): Promise<TabLike> {
    const shares = await this.port.getShares();
    let tab: TabLike | undefined;
    if (tabId === undefined) {
      tab = await this.port.activeTab();
      if (!tab) throw new Error("no tabId was given and there is no active tab; pass a tabId from list_tabs");
      if (shares[String(tab.id)] === undefined) {
        throw new Error(
          `no tabId was given and the active tab (${tab.id}) is not shared with the AI; pass the tab of a shared tab, or the user can share this one from the monkbrowse popup`,
        );
      }
    } else {
      if (shares[String(tabId)] === undefined) throw notSharedError(tabId);
      tab = await this.port.getTab(tabId);
      if (!tab) throw new CodedError(ERROR_CODES.tab_gone, `tab ${tabId} does not exist any more (it was closed)`);
    }
    if (!opts.allowRestricted) {
      const why = restrictedReason(tab.url, this.port.ownExtensionId);
      if (why) throw new Error(`tab ${tab.id} cannot be automated: ${why}`);
    }
    return tab;
  }

  async listTabs(): Promise<TabInfo[]> {
    const shares = await this.port.getShares();
    const out: TabInfo[] = [];
    for (const [k, slot] of Object.entries(shares)) {
      const t = await this.port.getTab(Number(k));
      if (t) out.push({ tabId: t.id, slot, url: t.url, title: t.title, active: t.active, windowId: t.windowId });
    }
    out.sort((a, b) => a.slot - b.slot);
    return out;
  }

  private async cs<K extends ActionOp>(p: { tabId?: unknown }, op: K, args: CsOps[K]["args"]): Promise<TabResult> {
    const tab = await this.resolveTab(optionalTabId(p));
    const r = await this.port.content(tab.id, op, args);
    return { tabId: tab.id, ...dialogsOf(r), ...(await this.noteOf(r)) };
  }

  /** The note for an answer whose page showed no effect (see UNCHANGED_NOTE). */
  private async noteOf(r: PageNotes | undefined): Promise<{ note?: string }> {
    const fallback = typeof r?.fallback === "string" ? `${r.fallback} ` : "";
    if (r?.unchanged !== true) return fallback ? { note: fallback.trim() } : {};
    const debuggerOn = (await this.port.getConsent()).debugger;
    return { note: fallback + UNCHANGED_NOTE + (debuggerOn ? "" : UNCHANGED_DEBUGGER_HINT) };
  }

  /**
   * Runs an action that may make the tab navigate (a link, a submit) and
   * answers once the new page has loaded (bounded), so the snapshot the
   * server takes next shows it. See navigation.ts.
   */
  private async csNavigating<K extends ActionOp>(
    p: { tabId?: unknown },
    op: K,
    args: CsOps[K]["args"],
    signal?: AbortSignal,
  ): Promise<TabResult> {
    const tab = await this.resolveTab(optionalTabId(p));
    // Listen before sending, so a navigation that starts at once is not missed.
    const watch = new NavigationWatch((id, l) => this.port.watchNavigation(id, l), tab.id, this.navTiming);
    // A cancel abandons the wait for the action's effect (the action is done).
    const stopWatch = () => watch.stop();
    signal?.addEventListener("abort", stopWatch, { once: true });
    let dialogs: { dialogs?: Dialog[] } = {};
    let note: { note?: string } = {};
    try {
      let pageSawNone = false;
      try {
        const r: PageNotes | undefined = await this.port.content(tab.id, op, args);
        pageSawNone = r?.navStarted === false;
        dialogs = dialogsOf(r);
        note = await this.noteOf(r);
      } catch (e) {
        // The page went away before the content script could answer: that is
        // the action's navigation, not a failure.
        if (!isLostReply(e) || !(await watch.explainsLostReply())) throw e;
      }
      await watch.settle(pageSawNone);
    } finally {
      signal?.removeEventListener("abort", stopWatch);
      watch.stop();
    }
    return { tabId: tab.id, ...dialogs, ...note };
  }

  /**
   * Runs one wire request. signal aborts when the server cancels the call:
   * a request not begun yet does nothing, and the waits it can abandon
   * (a navigation's load, an action's settle) end early. A refusal the
   * server acts on carries a code (ERROR_CODES).
   */
  async execute(type: string, payload: unknown, signal?: AbortSignal): Promise<WireResponses[WireType]> {
    const p = asRecord(payload);
    try {
      if (signal?.aborted) throw new Error(`${type} was cancelled by the server before it started; nothing was done`);
      if (!isWireType(type)) throw new Error(`this extension does not know the request "${type}"; update the extension to match the monkbrowse server`);
      return await this.run(type, p, signal);
    } catch (e) {
      throw tabGoneCode(e, p.tabId);
    }
  }

  private run<K extends WireType>(type: K, p: Unchecked<WireRequests[K]>, signal?: AbortSignal): Promise<WireResponses[K]> {
    return this.handlers[type](p, signal);
  }

  private async history(p: { tabId?: unknown }, what: "back" | "forward" | "reload", signal?: AbortSignal): Promise<TabResult> {
    const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
    await this.port.history(tab.id, what, signal);
    return { tabId: tab.id };
  }

  private readonly handlers: WireHandlers = {
    browser_navigate: async (p, signal) => {
      const url = normalizeUrl(requireString(p, "url"));
      const why = navigableReason(url);
      if (why) throw new Error(why);
      // Navigating away from a restricted page is fine.
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      await this.port.navigate(tab.id, url, signal);
      return { tabId: tab.id };
    },
    browser_go_back: (p, signal) => this.history(p, "back", signal),
    browser_go_forward: (p, signal) => this.history(p, "forward", signal),
    browser_reload: (p, signal) => this.history(p, "reload", signal),
    browser_click: (p, signal) => this.csNavigating(p, "click", { ref: requireString(p, "ref") }, signal),
    browser_hover: (p) => this.cs(p, "hover", { ref: requireString(p, "ref") }),
    browser_type: (p, signal) => {
      if (typeof p.text !== "string") throw new Error("text is required and must be a string");
      const args: CsOps["type"]["args"] = { ref: requireString(p, "ref"), text: p.text };
      if (p.submit === true) args.submit = true;
      // Only a submit (Enter) is expected to navigate.
      return args.submit ? this.csNavigating(p, "type", args, signal) : this.cs(p, "type", args);
    },
    browser_select_option: (p, signal) => {
      const values = p.values;
      if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
        throw new Error("values is required and must be an array of strings");
      }
      return this.csNavigating(p, "select", { ref: requireString(p, "ref"), values }, signal);
    },
    browser_press_key: (p, signal) => this.csNavigating(p, "press_key", { key: requireString(p, "key") }, signal),
    browser_scroll: (p) => {
      const args: CsOps["scroll"]["args"] = {};
      if (p.direction !== undefined) args.direction = oneOf("direction", p.direction, ["up", "down", "left", "right"]);
      if (p.amount !== undefined && p.amount !== 0) {
        if (typeof p.amount !== "number" || !Number.isFinite(p.amount)) throw new Error("amount must be a number of pixels");
        args.amount = p.amount;
      }
      if (typeof p.ref === "string" && p.ref !== "") args.ref = p.ref;
      return this.cs(p, "scroll", args);
    },
    browser_drag: (p, signal) =>
      this.csNavigating(p, "drag", { startRef: requireString(p, "startRef"), endRef: requireString(p, "endRef") }, signal),
    browser_upload_file: (p) => {
      if (typeof p.data !== "string") throw new Error("data is required and must be a base64 string");
      return this.cs(p, "upload", { ref: requireString(p, "ref"), name: requireString(p, "name"), data: p.data });
    },
    browser_get_console_logs: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p));
      const r = await this.port.content(tab.id, "console_logs", {});
      return { tabId: tab.id, logs: Array.isArray(r?.logs) ? r.logs : [] };
    },
    browser_screenshot: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p));
      const ref = typeof p.ref === "string" && p.ref !== "" ? p.ref : undefined;
      if (ref !== undefined && p.fullPage) throw new Error("pass either ref (one element) or fullPage (the whole page), not both");
      const o = shotOptions(p);
      if (ref !== undefined) return { tabId: tab.id, ...(await this.port.screenshotElement(tab, ref, o)) };
      if (p.fullPage === true) return { tabId: tab.id, ...(await this.port.screenshotFullPage(tab, o)) };
      return { tabId: tab.id, ...(await this.port.screenshot(tab, o)) };
    },
    browser_fill_form: (p) => {
      const fields = p.fields;
      if (!Array.isArray(fields) || fields.length === 0) throw new Error("fields is required and must be a non-empty list");
      const clean = fields.map((f, i) => {
        const o = asRecord(f);
        if (typeof o.ref !== "string" || o.ref === "" || typeof o.value !== "string") {
          throw new Error(`fields[${i}] needs a non-empty ref and a string value`);
        }
        return { ref: o.ref, value: o.value, ...(typeof o.element === "string" ? { element: o.element } : {}) };
      });
      return this.csNavigating(p, "fill_form", { fields: clean });
    },
    browser_click_xy: (p) => {
      const args: CsOps["click_xy"]["args"] = { x: requireNumber(p, "x"), y: requireNumber(p, "y") };
      if (p.button !== undefined) args.button = oneOf("button", p.button, ["left", "right", "middle"]);
      if (p.double === true) args.double = true;
      return this.csNavigating(p, "click_xy", args);
    },
    browser_drag_xy: (p) =>
      this.csNavigating(p, "drag_xy", {
        startX: requireNumber(p, "startX"),
        startY: requireNumber(p, "startY"),
        endX: requireNumber(p, "endX"),
        endY: requireNumber(p, "endY"),
      }),
    browser_network_requests: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      const opts: { filter?: string; since?: number; includeBodies?: boolean } = {};
      if (typeof p.filter === "string" && p.filter !== "") opts.filter = p.filter;
      if (typeof p.since === "number" && p.since > 0) opts.since = p.since;
      if (p.includeBodies === true) opts.includeBodies = true;
      return { tabId: tab.id, ...(await this.port.network(tab.id, opts)) };
    },
    browser_downloads: (p) => {
      const req: DownloadsRequest = {};
      if (p.wait !== undefined && p.wait !== null) {
        const w = asRecord(p.wait);
        req.wait = {};
        if (typeof w.urlContains === "string" && w.urlContains !== "") req.wait.urlContains = w.urlContains;
        if (typeof w.timeoutMs === "number" && w.timeoutMs > 0) req.wait.timeoutMs = w.timeoutMs;
      }
      return this.port.downloads(req);
    },
    browser_pdf: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p));
      return { tabId: tab.id, ...(await this.port.pdf(tab)) };
    },
    browser_snapshot: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p));
      // Refs keep counting across the tab's documents, so a ref from an
      // earlier page is unknown on this one instead of naming another element.
      const refBase = await this.port.refBase(tab.id);
      const stop = typeof p.stopAfterChars === "number" && Number.isInteger(p.stopAfterChars) && p.stopAfterChars > 0 ? p.stopAfterChars : undefined;
      // The page's own tools are counted beside the snapshot, never holding it up or failing it.
      const count = this.port.siteToolCount ? this.port.siteToolCount(tab.id) : this.port.siteTools?.(tab.id).then((l) => l.tools.length);
      const siteTools = count?.then(
        (n) => n,
        () => 0, // no count: the snapshot stands without its line (listing reports its own failures)
      );
      const r = await this.port.content(tab.id, "snapshot", stop === undefined ? { refBase } : { refBase, stopAfterChars: stop });
      if (typeof r?.refHigh === "number" && r.refHigh > refBase) await this.port.saveRefBase(tab.id, r.refHigh);
      // The URL and title are read after the snapshot so they describe the same page.
      const after = (await this.port.getTab(tab.id)) ?? tab;
      const res: WireResponses["browser_snapshot"] = { tabId: tab.id, url: after.url, title: after.title, snapshot: String(r?.snapshot ?? ""), ...dialogsOf(r) };
      if (Array.isArray(r?.viewport)) res.viewport = r.viewport.filter((x) => typeof x === "string");
      if (r?.limited === true) res.limited = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const n = await Promise.race([siteTools, new Promise<number>((resolve) => (timer = setTimeout(() => resolve(0), SITE_TOOLS_COUNT_WAIT_MS)))]);
      clearTimeout(timer);
      if (n) res.siteTools = n;
      return res;
    },
    browser_get_text: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p));
      const r = await this.port.content(tab.id, "get_text", typeof p.ref === "string" && p.ref !== "" ? { ref: p.ref } : {});
      return { tabId: tab.id, text: String(r?.text ?? "") };
    },
    browser_evaluate: async (p) => {
      const expression = requireString(p, "expression");
      if (!(await this.port.getConsent()).evaluate) throw new Error(EVALUATE_OFF_ERROR);
      const tab = await this.resolveTab(optionalTabId(p));
      return { tabId: tab.id, result: await this.port.evaluate(tab.id, expression) };
    },
    getUrl: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      return { tabId: tab.id, url: tab.url };
    },
    getTitle: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      return { tabId: tab.id, title: tab.title };
    },
    list_tabs: async () => ({ tabs: await this.listTabs() }),
    browser_switch_tab: async (p) => {
      const tab = await this.resolveTab(requireTabId(p), { allowRestricted: true });
      await this.port.activate(tab);
      return { activeTabId: tab.id };
    },
    browser_new_tab: async (p) => {
      if (p.url !== undefined && typeof p.url !== "string") throw new Error("url must be a string");
      const url = p.url ? normalizeUrl(p.url) : "about:blank";
      const why = navigableReason(url);
      if (why) throw new Error(why);
      // Opened blank and shared before it loads anything: the network log
      // (which records shared tabs only) and the hooks then see the page's
      // first load, its boot requests included. Chrome refuses a data: URL
      // in a tab that is already open, so that one opens with its URL (its
      // own content makes no requests before the share; its subresources
      // may).
      if (opensOnlyInNewTab(url)) {
        const tab = await this.port.openTab(url);
        return { tabId: tab.id, slot: await this.port.share(tab.id) };
      }
      const tab = await this.port.openTab("about:blank");
      const slot = await this.port.share(tab.id);
      if (url !== "about:blank") await this.port.navigate(tab.id, url);
      return { tabId: tab.id, slot };
    },
    person_edits: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      const since = typeof p.since === "number" && Number.isFinite(p.since) ? p.since : undefined;
      const r = await this.port.personEdits(tab.id, since);
      return r.edits.length > 0 ? { tabId: tab.id, seq: r.seq, edits: r.edits } : { tabId: tab.id, seq: r.seq };
    },
    browser_get_selection: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      return { tabId: tab.id, ...(await this.port.pointed(tab.id)) };
    },
    recordings: async (p) => {
      // Only through a tab the person shares: recordings leave the profile
      // only to an AI app the person shares a tab with.
      const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
      const all = normalizeRecordings(this.port.recordings ? await this.port.recordings() : []);
      if (p.name === undefined || p.name === null || p.name === "") return { tabId: tab.id, recordings: all };
      const name = requireString(p, "name");
      const format = p.format === undefined || p.format === null || p.format === "" ? "steps" : oneOf("format", p.format, ["steps", "playwright"]);
      const rec = all.find((r) => r.name === name);
      if (!rec) return { tabId: tab.id, recordings: [] };
      return format === "playwright" ? { tabId: tab.id, recordings: [rec], export: toPlaywrightTest(rec) } : { tabId: tab.id, recordings: [rec] };
    },
    browser_handle_dialog: async (p) => {
      if (typeof p.accept !== "boolean") throw new Error("accept is required and must be true or false");
      if (p.promptText !== undefined && p.promptText !== null && typeof p.promptText !== "string") throw new Error("promptText must be a string");
      const tab = await this.resolveTab(optionalTabId(p));
      const answer: { accept: boolean; promptText?: string } = { accept: p.accept };
      if (typeof p.promptText === "string") answer.promptText = p.promptText;
      await this.port.armDialog(tab.id, answer);
      return { tabId: tab.id };
    },
    browser_ask_user: async (p, signal) => {
      const message = requireString(p, "message");
      // The server's name for the ask (it ends the ask by it if its call is cancelled); else ours.
      if (p.askId !== undefined && !isAskId(p.askId)) throw new Error("askId must be 12 lowercase hex digits (the server's name for the request); update the monkbrowse server and extension to match");
      const tab = await this.resolveTab(optionalTabId(p));
      const app = (p as Record<string, unknown>)[REQUEST_APP_FIELD];
      return this.port.ask(tab.id, message, typeof app === "string" && app.trim() !== "" ? app : "The AI", waitMsOf(p), signal, p.askId);
    },
    ask_wait: (p, signal) => this.port.askWait(requireString(p, "askId"), waitMsOf(p), signal),
    ask_end: (p) => this.port.askEnd(requireString(p, "askId"), typeof p.why === "string" ? p.why.slice(0, 200) : ""),
    browser_site_tools: async (p) => {
      const tab = await this.resolveTab(optionalTabId(p));
      if (!this.port.siteTools) return { tabId: tab.id, tools: [], unsupported: true };
      const { tools, unsupported, insecure, unread } = await this.port.siteTools(tab.id);
      return { tabId: tab.id, tools, ...(unsupported ? { unsupported } : {}), ...(insecure ? { insecure } : {}), ...(unread ? { unread } : {}) };
    },
    browser_site_tool_call: async (p, signal) => {
      const name = requireString(p, "name");
      if (p.frame !== undefined && p.frame !== null && (typeof p.frame !== "number" || !Number.isInteger(p.frame) || p.frame < 0)) {
        throw new Error("frame must be a frame number from browser_site_tools");
      }
      const args = p.arguments === undefined || p.arguments === null ? {} : p.arguments;
      const tab = await this.resolveTab(optionalTabId(p));
      if (!this.port.siteToolCall) throw new Error("this extension cannot run pages' own tools");
      const app = (p as Record<string, unknown>)[REQUEST_APP_FIELD];
      const call: { name: string; frame?: number; args: unknown } = { name, args };
      if (typeof p.frame === "number") call.frame = p.frame;
      return { tabId: tab.id, ...(await this.port.siteToolCall(tab.id, call, typeof app === "string" && app.trim() !== "" ? app : "The AI", signal)) };
    },
    browser_close_tab: async (p) => {
      const tab = await this.resolveTab(requireTabId(p), { allowRestricted: true });
      await this.port.closeTab(tab.id);
      return { tabId: tab.id };
    },
  };
}

/** How long a snapshot waits, after its own answer, for the count of the page's own tools. */
export const SITE_TOOLS_COUNT_WAIT_MS = 300;

/** An ask's wait: 0 (answer at once) to ASK_MAX_WAIT_MS. */
function waitMsOf(p: { waitMs?: unknown }): number {
  const v = p.waitMs;
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new Error(`waitMs must be a number of milliseconds (got ${JSON.stringify(v)})`);
  return Math.min(v, ASK_MAX_WAIT_MS);
}

/** A URL Chrome opens only in a new tab: it blocks data: URLs loaded into an existing one. */
export function opensOnlyInNewTab(url: string): boolean {
  return /^data:/i.test(url);
}
