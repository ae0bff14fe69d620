// The executor of wire requests (DESIGN §5.1): resolves the tab, refuses
// tabs the person did not share and pages Chrome does not let extensions
// touch, then does the work through a BrowserPort. The port is implemented
// with Chrome APIs in entrypoints/background/; tests use a fake.

import type { CsOp, CsOps } from "./messages";
import { CodedError, errorText } from "./peer";
import { ERROR_CODES } from "./protocol.gen";
import type {
  ClickXYRequest,
  ConsoleLogsResult,
  DownloadsRequest,
  DownloadsResult,
  DragXYRequest,
  FillFormRequest,
  NetworkRequestsRequest,
  NetworkRequestsResult,
  PDFResult,
  ScreenshotRequest,
  Dialog,
  DragRequest,
  ElementRequest,
  EvaluateRequest,
  GetTextRequest,
  ListTabsResult,
  NavigateRequest,
  NewTabRequest,
  NewTabResult,
  PressKeyRequest,
  ScreenshotResult,
  ScrollRequest,
  SelectOptionRequest,
  SnapshotResult,
  SwitchTabResult,
  TabInfo,
  TabResult,
  TextResult,
  TitleResult,
  TypeRequest,
  UploadFileRequest,
  URLResult,
  EvaluateResult,
  WireResponses,
} from "./protocol.gen";
import { DEFAULT_NAV_TIMING, isLostReply, NavigationWatch, type NavTiming, type WatchNavigation } from "./navigation";
import { navigableReason, normalizeUrl, restrictedReason } from "./urls";
import type { Consent, Shares } from "./storage";

export interface TabLike {
  id: number;
  windowId: number;
  url: string;
  title: string;
  active: boolean;
}

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
  /** Captures the tab as base64 PNG (no data: prefix), restoring the person's active tab. */
  screenshot(tab: TabLike): Promise<string>;
  /** One element (by ref), cropped; a note when only part of it is visible. */
  screenshotElement(tab: TabLike, ref: string): Promise<{ data: string; note?: string }>;
  /** The whole page, stitched from viewport captures (bounded). */
  screenshotFullPage(tab: TabLike): Promise<{ data: string; note?: string }>;
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
}

/** The dialogs a content-script answer reports, validated (none → undefined). */
function dialogsOf(r: unknown): { dialogs?: Dialog[] } {
  const d = (r as { dialogs?: unknown } | undefined)?.dialogs;
  if (!Array.isArray(d)) return {};
  const out: Dialog[] = [];
  for (const x of d) {
    if (!x || typeof x !== "object") continue;
    const o = x as Record<string, unknown>;
    if (typeof o.type !== "string" || typeof o.message !== "string") continue;
    const one: Dialog = { type: o.type, message: o.message, accepted: o.accepted === true, armed: o.armed === true };
    if (typeof o.answer === "string") one.answer = o.answer;
    out.push(one);
  }
  return out.length > 0 ? { dialogs: out } : {};
}

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

function asRecord(p: unknown): Record<string, unknown> {
  return typeof p === "object" && p !== null && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

function optionalTabId(p: unknown): number | undefined {
  const v = asRecord(p).tabId;
  if (v === undefined || v === null || v === 0) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new Error(`tabId must be a positive integer (got ${JSON.stringify(v)})`);
  return v;
}

function requireString(p: unknown, field: string): string {
  const v = asRecord(p)[field];
  if (typeof v !== "string" || v === "") throw new Error(`${field} is required and must be a non-empty string`);
  return v;
}

function requireNumber(p: unknown, field: string): number {
  const v = asRecord(p)[field];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${field} is required and must be a number`);
  return v;
}

function requireTabId(p: unknown): number {
  const v = asRecord(p).tabId;
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) throw new Error("tabId is required and must be a positive integer");
  return v;
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

  private async cs<K extends CsOp>(p: unknown, op: K, args: CsOps[K]["args"]): Promise<TabResult> {
    const tab = await this.resolveTab(optionalTabId(p));
    const r = await this.port.content(tab.id, op, args);
    return { tabId: tab.id, ...dialogsOf(r) };
  }

  /**
   * Runs an action that may make the tab navigate (a link, a submit) and
   * answers once the new page has loaded (bounded), so the snapshot the
   * server takes next shows it. See navigation.ts.
   */
  private async csNavigating<K extends CsOp>(
    p: unknown,
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
    try {
      let pageSawNone = false;
      try {
        const r = (await this.port.content(tab.id, op, args)) as { navStarted?: unknown } | undefined;
        pageSawNone = r?.navStarted === false;
        dialogs = dialogsOf(r);
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
    return { tabId: tab.id, ...dialogs };
  }

  /**
   * Runs one wire request. signal aborts when the server cancels the call:
   * a request not begun yet does nothing, and the waits it can abandon
   * (a navigation's load, an action's settle) end early. A refusal the
   * server acts on carries a code (ERROR_CODES).
   */
  async execute(type: string, payload: unknown, signal?: AbortSignal): Promise<WireResponses[keyof WireResponses]> {
    try {
      return await this.run(type, payload, signal);
    } catch (e) {
      throw tabGoneCode(e, asRecord(payload).tabId);
    }
  }

  private async run(type: string, payload: unknown, signal?: AbortSignal): Promise<WireResponses[keyof WireResponses]> {
    if (signal?.aborted) throw new Error(`${type} was cancelled by the server before it started; nothing was done`);
    const p = payload;
    switch (type) {
      case "browser_navigate": {
        const req = p as NavigateRequest;
        const url = normalizeUrl(requireString(p, "url"));
        const why = navigableReason(url);
        if (why) throw new Error(why);
        // Navigating away from a restricted page is fine.
        const tab = await this.resolveTab(optionalTabId(req), { allowRestricted: true });
        await this.port.navigate(tab.id, url, signal);
        return { tabId: tab.id } satisfies TabResult;
      }
      case "browser_go_back":
      case "browser_go_forward":
      case "browser_reload": {
        const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
        const what = type === "browser_go_back" ? "back" : type === "browser_go_forward" ? "forward" : "reload";
        await this.port.history(tab.id, what, signal);
        return { tabId: tab.id } satisfies TabResult;
      }
      case "browser_click":
      case "browser_hover": {
        const req = p as ElementRequest;
        const args = { ref: requireString(req, "ref") };
        return type === "browser_click" ? this.csNavigating(p, "click", args, signal) : this.cs(p, "hover", args);
      }
      case "browser_type": {
        const req = p as TypeRequest;
        const text = asRecord(p).text;
        if (typeof text !== "string") throw new Error("text is required and must be a string");
        const args: CsOps["type"]["args"] = { ref: requireString(req, "ref"), text };
        if (req.submit) args.submit = true;
        // Only a submit (Enter) is expected to navigate.
        return req.submit ? this.csNavigating(p, "type", args, signal) : this.cs(p, "type", args);
      }
      case "browser_select_option": {
        const req = p as SelectOptionRequest;
        const values = asRecord(p).values;
        if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
          throw new Error("values is required and must be an array of strings");
        }
        return this.csNavigating(p, "select", { ref: requireString(req, "ref"), values: values as string[] }, signal);
      }
      case "browser_press_key": {
        const req = p as PressKeyRequest;
        return this.csNavigating(p, "press_key", { key: requireString(req, "key") }, signal);
      }
      case "browser_scroll": {
        const req = asRecord(p) as ScrollRequest;
        const args: CsOps["scroll"]["args"] = {};
        if (req.direction !== undefined) {
          if (!["up", "down", "left", "right"].includes(req.direction)) {
            throw new Error(`direction must be one of up, down, left, right (got ${JSON.stringify(req.direction)})`);
          }
          args.direction = req.direction;
        }
        if (req.amount !== undefined && req.amount !== 0) {
          if (typeof req.amount !== "number" || !Number.isFinite(req.amount)) throw new Error("amount must be a number of pixels");
          args.amount = req.amount;
        }
        if (req.ref) args.ref = req.ref;
        return this.cs(p, "scroll", args);
      }
      case "browser_drag": {
        const req = p as DragRequest;
        return this.csNavigating(
          p,
          "drag",
          { startRef: requireString(req, "startRef"), endRef: requireString(req, "endRef") },
          signal,
        );
      }
      case "browser_upload_file": {
        const req = p as UploadFileRequest;
        const data = asRecord(p).data;
        if (typeof data !== "string") throw new Error("data is required and must be a base64 string");
        return this.cs(p, "upload", { ref: requireString(req, "ref"), name: requireString(req, "name"), data });
      }
      case "browser_get_console_logs": {
        const tab = await this.resolveTab(optionalTabId(p));
        const r = await this.port.content(tab.id, "console_logs", {});
        return { tabId: tab.id, logs: Array.isArray(r?.logs) ? r.logs : [] } satisfies ConsoleLogsResult;
      }
      case "browser_screenshot": {
        const req = asRecord(p) as ScreenshotRequest;
        const tab = await this.resolveTab(optionalTabId(p));
        if (req.ref !== undefined && req.ref !== "" && req.fullPage) {
          throw new Error("pass either ref (one element) or fullPage (the whole page), not both");
        }
        if (typeof req.ref === "string" && req.ref !== "") {
          const r = await this.port.screenshotElement(tab, req.ref);
          return { tabId: tab.id, ...r } satisfies ScreenshotResult;
        }
        if (req.fullPage === true) {
          const r = await this.port.screenshotFullPage(tab);
          return { tabId: tab.id, ...r } satisfies ScreenshotResult;
        }
        const data = await this.port.screenshot(tab);
        return { tabId: tab.id, data } satisfies ScreenshotResult;
      }
      case "browser_fill_form": {
        const fields = asRecord(p as FillFormRequest).fields;
        if (!Array.isArray(fields) || fields.length === 0) throw new Error("fields is required and must be a non-empty list");
        const clean = fields.map((f, i) => {
          const o = asRecord(f);
          if (typeof o.ref !== "string" || o.ref === "" || typeof o.value !== "string") {
            throw new Error(`fields[${i}] needs a non-empty ref and a string value`);
          }
          return { ref: o.ref, value: o.value, ...(typeof o.element === "string" ? { element: o.element } : {}) };
        });
        return this.csNavigating(p, "fill_form", { fields: clean });
      }
      case "browser_click_xy": {
        const req = asRecord(p) as unknown as ClickXYRequest;
        const args: CsOps["click_xy"]["args"] = { x: requireNumber(p, "x"), y: requireNumber(p, "y") };
        if (req.button !== undefined) {
          if (!["left", "right", "middle"].includes(req.button)) throw new Error(`button must be left, right or middle (got ${JSON.stringify(req.button)})`);
          args.button = req.button;
        }
        if (req.double === true) args.double = true;
        return this.csNavigating(p, "click_xy", args);
      }
      case "browser_drag_xy": {
        const args: DragXYRequest = {
          startX: requireNumber(p, "startX"),
          startY: requireNumber(p, "startY"),
          endX: requireNumber(p, "endX"),
          endY: requireNumber(p, "endY"),
        };
        return this.csNavigating(p, "drag_xy", args);
      }
      case "browser_network_requests": {
        const req = asRecord(p) as NetworkRequestsRequest;
        const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
        const opts: { filter?: string; since?: number; includeBodies?: boolean } = {};
        if (typeof req.filter === "string" && req.filter !== "") opts.filter = req.filter;
        if (typeof req.since === "number" && req.since > 0) opts.since = req.since;
        if (req.includeBodies === true) opts.includeBodies = true;
        const r = await this.port.network(tab.id, opts);
        return { tabId: tab.id, ...r } satisfies NetworkRequestsResult;
      }
      case "browser_downloads": {
        const wait = asRecord(p).wait;
        const req: DownloadsRequest = {};
        if (wait !== undefined && wait !== null) {
          const w = asRecord(wait);
          req.wait = {};
          if (typeof w.urlContains === "string" && w.urlContains !== "") req.wait.urlContains = w.urlContains;
          if (typeof w.timeoutMs === "number" && w.timeoutMs > 0) req.wait.timeoutMs = w.timeoutMs;
        }
        return this.port.downloads(req);
      }
      case "browser_pdf": {
        const tab = await this.resolveTab(optionalTabId(p));
        const r = await this.port.pdf(tab);
        return { tabId: tab.id, ...r } satisfies PDFResult;
      }
      case "browser_snapshot": {
        const tab = await this.resolveTab(optionalTabId(p));
        // Refs keep counting across the tab's documents, so a ref from an
        // earlier page is unknown on this one instead of naming another element.
        const refBase = await this.port.refBase(tab.id);
        const r = await this.port.content(tab.id, "snapshot", { refBase });
        if (typeof r?.refHigh === "number" && r.refHigh > refBase) await this.port.saveRefBase(tab.id, r.refHigh);
        // The URL and title are read after the snapshot so they describe the same page.
        const after = (await this.port.getTab(tab.id)) ?? tab;
        const res: SnapshotResult = { tabId: tab.id, url: after.url, title: after.title, snapshot: String(r?.snapshot ?? ""), ...dialogsOf(r) };
        if (Array.isArray(r?.viewport)) res.viewport = r.viewport.filter((x) => typeof x === "string");
        return res;
      }
      case "browser_get_text": {
        const req = asRecord(p) as GetTextRequest;
        const tab = await this.resolveTab(optionalTabId(p));
        const r = await this.port.content(tab.id, "get_text", req.ref ? { ref: req.ref } : {});
        return { tabId: tab.id, text: String(r?.text ?? "") } satisfies TextResult;
      }
      case "browser_evaluate": {
        const req = p as EvaluateRequest;
        const expression = requireString(req, "expression");
        if (!(await this.port.getConsent()).evaluate) throw new Error(EVALUATE_OFF_ERROR);
        const tab = await this.resolveTab(optionalTabId(p));
        const result = await this.port.evaluate(tab.id, expression);
        return { tabId: tab.id, result } satisfies EvaluateResult;
      }
      case "getUrl": {
        const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
        return { tabId: tab.id, url: tab.url } satisfies URLResult;
      }
      case "getTitle": {
        const tab = await this.resolveTab(optionalTabId(p), { allowRestricted: true });
        return { tabId: tab.id, title: tab.title } satisfies TitleResult;
      }
      case "list_tabs":
        return { tabs: await this.listTabs() } satisfies ListTabsResult;
      case "browser_switch_tab": {
        const tab = await this.resolveTab(requireTabId(p), { allowRestricted: true });
        await this.port.activate(tab);
        return { activeTabId: tab.id } satisfies SwitchTabResult;
      }
      case "browser_new_tab": {
        const raw = asRecord(p as NewTabRequest).url;
        if (raw !== undefined && typeof raw !== "string") throw new Error("url must be a string");
        const url = raw ? normalizeUrl(raw) : "about:blank";
        const why = navigableReason(url);
        if (why) throw new Error(why);
        const tab = await this.port.openTab(url);
        const slot = await this.port.share(tab.id);
        return { tabId: tab.id, slot } satisfies NewTabResult;
      }
      case "browser_handle_dialog": {
        const o = asRecord(p);
        if (typeof o.accept !== "boolean") throw new Error("accept is required and must be true or false");
        if (o.promptText !== undefined && o.promptText !== null && typeof o.promptText !== "string") throw new Error("promptText must be a string");
        const tab = await this.resolveTab(optionalTabId(p));
        const answer: { accept: boolean; promptText?: string } = { accept: o.accept };
        if (typeof o.promptText === "string") answer.promptText = o.promptText;
        await this.port.armDialog(tab.id, answer);
        return { tabId: tab.id } satisfies TabResult;
      }
      case "browser_close_tab": {
        const tab = await this.resolveTab(requireTabId(p), { allowRestricted: true });
        await this.port.closeTab(tab.id);
        return { tabId: tab.id } satisfies TabResult;
      }
      default:
        throw new Error(`this extension does not know the request "${type}"; update the extension to match the monkbrowse server`);
    }
  }
}
