import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EVALUATE_OFF_ERROR, Executor, UNCHANGED_DEBUGGER_HINT, UNCHANGED_NOTE, type BrowserPort, type TabLike } from "./executor";
import type { CsOp } from "./messages";
import { isLostReply, NAV_GRACE_MS, NAV_LOAD_TIMEOUT_MS, NAV_QUIET_AFTER_REPLY_MS, type NavEvent } from "./navigation";
import { CodedError } from "./peer";
import { shareTab } from "./slots";
import type { Consent, Shares } from "./storage";
import type { DownloadsRequest } from "./protocol.gen";
import type { ShotOptions } from "./shot-size";

class FakeBrowser implements BrowserPort {
  siteTools?: BrowserPort["siteTools"];
  siteToolCount?: BrowserPort["siteToolCount"];
  siteToolCall?: BrowserPort["siteToolCall"];
  ownExtensionId = "emkgfnickjohaibbledibfemnfkoamdj";
  tabs = new Map<number, TabLike>();
  shares: Shares = {};
  calls: string[] = [];
  active: number | undefined;
  csReply: Record<string, unknown> = {};
  csError: string | undefined;
  nextId = 500;

  add(id: number, url: string, opts: Partial<TabLike> = {}): TabLike {
    const t = { id, windowId: 1, url, title: `T${id}`, active: false, ...opts };
    this.tabs.set(id, t);
    return t;
  }
  async getTab(id: number) {
    return this.tabs.get(id);
  }
  async activeTab() {
    return this.active === undefined ? undefined : this.tabs.get(this.active);
  }
  async getShares() {
    return this.shares;
  }
  consent: Consent = { evaluate: true, debugger: false, secretsInShots: false };
  async getConsent() {
    return this.consent;
  }
  async share(id: number) {
    this.calls.push(`share ${id}`);
    const r = shareTab(this.shares, id);
    this.shares = r.shares;
    return r.slot;
  }
  async navigate(id: number, url: string) {
    this.calls.push(`navigate ${id} ${url}`);
    this.tabs.get(id)!.url = url;
  }
  async history(id: number, what: string) {
    this.calls.push(`${what} ${id}`);
  }
  /** Runs inside content() before it answers: the page's reaction to the action. */
  csHook: ((tabId: number, op: CsOp) => void) | undefined;
  async content(id: number, op: CsOp, args: unknown): Promise<never> {
    this.calls.push(`cs ${id} ${op} ${JSON.stringify(args)}`);
    this.csHook?.(id, op);
    if (this.csError) throw new Error(this.csError);
    return (this.csReply[op] ?? {}) as never;
  }
  navListeners: { tabId: number; listener: (e: NavEvent) => void }[] = [];
  watches = 0;
  watchNavigation(tabId: number, listener: (e: NavEvent) => void) {
    this.watches++;
    const entry = { tabId, listener };
    this.navListeners.push(entry);
    return () => {
      this.navListeners = this.navListeners.filter((x) => x !== entry);
    };
  }
  /** Delivers a main-frame navigation event of tabId, as chrome.webNavigation would. */
  emit(tabId: number, e: NavEvent) {
    for (const x of [...this.navListeners]) if (x.tabId === tabId) x.listener(e);
  }
  refBases = new Map<number, number>();
  async refBase(id: number) {
    return this.refBases.get(id) ?? 0;
  }
  async saveRefBase(id: number, high: number) {
    this.refBases.set(id, high);
  }
  async screenshot(t: TabLike, o: ShotOptions) {
    this.calls.push(`screenshot ${t.id} ${JSON.stringify(o)}`);
    return { data: "iVBORw0KGgo=", mimeType: "image/png" };
  }
  async screenshotElement(t: TabLike, ref: string, o: ShotOptions) {
    this.calls.push(`screenshotElement ${t.id} ${ref} ${o.format}`);
    return { data: "ELEM", note: "part" };
  }
  async screenshotFullPage(t: TabLike, o: ShotOptions) {
    this.calls.push(`screenshotFullPage ${t.id} ${o.format}`);
    return { data: "FULL" };
  }
  async network(id: number, opts: { filter?: string; since?: number; includeBodies?: boolean }) {
    this.calls.push(`network ${id} ${JSON.stringify(opts)}`);
    return { url: "https://example.com/a", requests: [], total: 0 };
  }
  async downloads(req: DownloadsRequest) {
    this.calls.push(`downloads ${JSON.stringify(req)}`);
    return { downloads: [] };
  }
  async pdf(t: TabLike) {
    this.calls.push(`pdf ${t.id}`);
    return { path: "/tmp/a.pdf", size: 3 };
  }
  async evaluate(id: number, expr: string) {
    this.calls.push(`eval ${id} ${expr}`);
    return 12;
  }
  async openTab(url: string) {
    const t = this.add(this.nextId++, url, { active: true });
    this.calls.push(`open ${url}`);
    return t;
  }
  async activate(t: TabLike) {
    this.calls.push(`activate ${t.id}`);
  }
  arms: string[] = [];
  async personEdits() {
    return { seq: 0, edits: [] };
  }
  async pointed() {
    return { pointed: false };
  }
  async armDialog(id: number, a: { accept: boolean; promptText?: string }) {
    this.arms.push(`${id} ${JSON.stringify(a)}`);
  }
  async closeTab(id: number) {
    this.calls.push(`close ${id}`);
    this.tabs.delete(id);
  }
  async ask(id: number, message: string, app: string, waitMs: number, _signal?: AbortSignal, askId?: string) {
    this.calls.push(`ask ${id} ${JSON.stringify(message)} ${app} ${waitMs}${askId ? ` ${askId}` : ""}`);
    return { tabId: id, askId: "a1", state: "pending" };
  }
  async askWait(askId: string, waitMs: number) {
    this.calls.push(`askWait ${askId} ${waitMs}`);
    return { tabId: 10, askId, state: "done", answeredIn: "page" };
  }
  async askEnd(askId: string, why: string) {
    this.calls.push(`askEnd ${askId} ${why}`);
    return { ended: true };
  }
}

function setup(opts: { realTiming?: boolean } = {}) {
  const b = new FakeBrowser();
  b.add(10, "https://example.com/a", { active: true });
  b.add(11, "https://example.com/b");
  b.add(12, "chrome://settings/");
  b.add(13, "https://example.com/c");
  b.active = 10;
  b.shares = { "10": 1, "11": 2, "12": 3 };
  // Short grace periods keep the tests that do not look at navigation quick.
  const x = opts.realTiming ? new Executor(b) : new Executor(b, { navTiming: { graceMs: 2, graceAfterReplyMs: 1 } });
  return { b, x };
}

describe("Executor", () => {
  it("refuses tabs that are not shared, with the message the AI sees", async () => {
    const { x } = setup();
    await expect(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 13 })).rejects.toThrow(
      "tab 13 is not shared with the AI; the user can share it from the monkbrowse popup",
    );
    await expect(x.execute("getUrl", { tabId: 999 })).rejects.toThrow("tab 999 is not shared");
  });

  it("gives the refusals the server acts on a code (ERROR_CODES), the sentence unchanged", async () => {
    const { b, x } = setup();
    const codeOf = (p: Promise<unknown>) => p.then(() => "resolved", (e: unknown) => (e instanceof CodedError ? e.code : `no code: ${String(e)}`));
    await expect(codeOf(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 13 }))).resolves.toBe("not_shared");
    b.shares["14"] = 4; // shared, then closed before the tabs list caught up
    await expect(codeOf(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 14 }))).resolves.toBe("tab_gone");
    // Chrome's own words for a tab that went away mid-call: coded for the request's tab only.
    b.csError = "No tab with id: 10.";
    await expect(codeOf(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 10 }))).resolves.toBe("tab_gone");
    b.csError = "cannot reach the page: No tab with id: 99.";
    await expect(codeOf(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 10 }))).resolves.toMatch(/^no code/);
    b.csError = "ref e1 is not on the page any more";
    await expect(codeOf(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 10 }))).resolves.toMatch(/^no code/);
  });

  it("uses the active tab when tabId is omitted, if it is shared", async () => {
    const { b, x } = setup();
    await expect(x.execute("browser_click", { ref: "e1", element: "Go" })).resolves.toEqual({ tabId: 10 });
    expect(b.calls).toEqual(['cs 10 click {"ref":"e1"}']);
    b.active = 13;
    await expect(x.execute("browser_snapshot", {})).rejects.toThrow(/active tab \(13\) is not shared/);
    b.active = undefined;
    await expect(x.execute("getTitle", {})).rejects.toThrow(/no active tab/);
  });

  it("refuses Chrome's own pages for page operations but lets them navigate away", async () => {
    const { b, x } = setup();
    await expect(x.execute("browser_snapshot", { tabId: 12 })).rejects.toThrow(/cannot be automated/);
    await expect(x.execute("browser_navigate", { tabId: 12, url: "example.org" })).resolves.toEqual({ tabId: 12 });
    expect(b.calls).toEqual(["navigate 12 https://example.org"]);
    await expect(x.execute("browser_navigate", { tabId: 10, url: "chrome://flags" })).rejects.toThrow(/only http/);
  });

  it("says when the page showed no effect of an action, naming the debugger switch only while it is off", async () => {
    const { b, x } = setup();
    b.csReply.press_key = { unchanged: true };
    b.csReply.drag_xy = { target: "<canvas>", unchanged: true };
    const off = (await x.execute("browser_press_key", { key: "Ctrl+B", tabId: 11 })) as { note?: string };
    expect(off.note).toBe(UNCHANGED_NOTE + UNCHANGED_DEBUGGER_HINT);
    expect(off.note).toContain("Use Chrome's debugger");
    b.consent = { evaluate: true, debugger: true, secretsInShots: false };
    const on = (await x.execute("browser_drag_xy", { startX: 1, startY: 2, endX: 3, endY: 4, tabId: 11 })) as { note?: string };
    expect(on.note).toBe(UNCHANGED_NOTE);
    b.csReply.press_key = {};
    expect(await x.execute("browser_press_key", { key: "a", tabId: 11 })).toEqual({ tabId: 11 });
  });

  it("maps element operations onto content-script ops", async () => {
    const { b, x } = setup();
    await x.execute("browser_type", { ref: "e4", element: "Email", text: "ada@example.com", submit: true, tabId: 11 });
    await x.execute("browser_select_option", { ref: "e5", element: "Size", values: ["L"], tabId: 11 });
    await x.execute("browser_press_key", { key: "Ctrl+A", tabId: 11 });
    await x.execute("browser_scroll", { direction: "down", amount: 300, tabId: 11 });
    await x.execute("browser_drag", { startRef: "e1", endRef: "e2", tabId: 11 });
    await x.execute("browser_upload_file", { ref: "e9", name: "a.txt", data: "aGk=", tabId: 11 });
    await x.execute("browser_hover", { ref: "e3", element: "Menu", tabId: 11 });
    expect(b.calls).toEqual([
      'cs 11 type {"ref":"e4","text":"ada@example.com","submit":true}',
      'cs 11 select {"ref":"e5","values":["L"]}',
      'cs 11 press_key {"key":"Ctrl+A"}',
      'cs 11 scroll {"direction":"down","amount":300}',
      'cs 11 drag {"startRef":"e1","endRef":"e2"}',
      'cs 11 upload {"ref":"e9","name":"a.txt","data":"aGk="}',
      'cs 11 hover {"ref":"e3"}',
    ]);
  });

  it("passes content-script errors through unchanged", async () => {
    const { b, x } = setup();
    b.csError = "ref e12 is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it";
    await expect(x.execute("browser_click", { ref: "e12", element: "x", tabId: 10 })).rejects.toThrow(b.csError);
  });

  it("names the bad field", async () => {
    const { x } = setup();
    await expect(x.execute("browser_click", { element: "x", tabId: 10 })).rejects.toThrow("ref is required");
    await expect(x.execute("browser_type", { ref: "e1", element: "x", tabId: 10 })).rejects.toThrow("text is required");
    await expect(x.execute("browser_select_option", { ref: "e1", values: "L", tabId: 10 })).rejects.toThrow("values is required");
    await expect(x.execute("browser_scroll", { direction: "sideways", tabId: 10 })).rejects.toThrow("direction must be");
    await expect(x.execute("browser_switch_tab", {})).rejects.toThrow("tabId is required");
    await expect(x.execute("browser_click", { ref: "e1", tabId: "10" })).rejects.toThrow("tabId must be");
    await expect(x.execute("browser_fly", {})).rejects.toThrow(/does not know the request "browser_fly"/);
  });

  it("answers snapshot in one round trip with url and title", async () => {
    const { b, x } = setup();
    b.csReply.snapshot = { snapshot: '- button "Go" [ref=e1]' };
    await expect(x.execute("browser_snapshot", { tabId: 11 })).resolves.toEqual({
      tabId: 11,
      url: "https://example.com/b",
      title: "T11",
      snapshot: '- button "Go" [ref=e1]',
    });
  });

  it("keeps ref numbers growing across a tab's documents (a stale ref never names a new element)", async () => {
    const { b, x } = setup();
    b.csReply.snapshot = { snapshot: '- button "Go" [ref=e41]', refHigh: 41 };
    await x.execute("browser_snapshot", { tabId: 11 });
    expect(b.calls).toContain('cs 11 snapshot {"refBase":0}');
    expect(b.refBases.get(11)).toBe(41);
    // The next document starts above e41; a lower refHigh never moves the base back.
    b.csReply.snapshot = { snapshot: "", refHigh: 3 };
    await x.execute("browser_snapshot", { tabId: 11 });
    expect(b.calls).toContain('cs 11 snapshot {"refBase":41}');
    expect(b.refBases.get(11)).toBe(41);
  });

  it("reads text, console logs, url, title; screenshots and evaluates", async () => {
    const { b, x } = setup();
    b.csReply.get_text = { text: "hello" };
    b.csReply.console_logs = { logs: [{ level: "log", text: "hi", time: 1 }] };
    await expect(x.execute("browser_get_text", { ref: "e2", tabId: 10 })).resolves.toEqual({ tabId: 10, text: "hello" });
    await expect(x.execute("browser_get_console_logs", { tabId: 10 })).resolves.toEqual({ tabId: 10, logs: [{ level: "log", text: "hi", time: 1 }] });
    await expect(x.execute("getUrl", { tabId: 12 })).resolves.toEqual({ tabId: 12, url: "chrome://settings/" });
    await expect(x.execute("getTitle", { tabId: 11 })).resolves.toEqual({ tabId: 11, title: "T11" });
    await expect(x.execute("browser_screenshot", { tabId: 11 })).resolves.toEqual({ tabId: 11, data: "iVBORw0KGgo=", mimeType: "image/png" });
    await x.execute("browser_screenshot", { tabId: 11, format: "webp", quality: 50, fullSize: true });
    expect(b.calls).toContain('screenshot 11 {"format":"jpeg","quality":0.8,"fullSize":false}');
    expect(b.calls).toContain('screenshot 11 {"format":"webp","quality":0.5,"fullSize":true}');
    await expect(x.execute("browser_screenshot", { tabId: 11, format: "gif" })).rejects.toThrow(/jpeg, png or webp/);
    await expect(x.execute("browser_evaluate", { expression: "6*2", tabId: 10 })).resolves.toEqual({ tabId: 10, result: 12 });
    expect(b.calls).toContain('cs 10 get_text {"ref":"e2"}');
  });

  it("refuses browser_evaluate until the person switched JavaScript on for the profile", async () => {
    const { b, x } = setup();
    b.consent = { evaluate: false, debugger: false, secretsInShots: false };
    await expect(x.execute("browser_evaluate", { expression: "6*2", tabId: 10 })).rejects.toThrow(EVALUATE_OFF_ERROR);
    expect(EVALUATE_OFF_ERROR).toContain("Let the AI run JavaScript in shared tabs");
    expect(b.calls.filter((c) => c.startsWith("eval"))).toEqual([]);
    b.consent = { evaluate: true, debugger: false, secretsInShots: false };
    await expect(x.execute("browser_evaluate", { expression: "6*2", tabId: 10 })).resolves.toEqual({ tabId: 10, result: 12 });
  });

  it("screenshots one element or the whole page, and refuses both at once", async () => {
    const { b, x } = setup();
    await expect(x.execute("browser_screenshot", { tabId: 11, ref: "e3" })).resolves.toEqual({ tabId: 11, data: "ELEM", note: "part" });
    await expect(x.execute("browser_screenshot", { tabId: 11, fullPage: true })).resolves.toEqual({ tabId: 11, data: "FULL" });
    await expect(x.execute("browser_screenshot", { tabId: 11, ref: "e3", fullPage: true })).rejects.toThrow(/either ref/);
    expect(b.calls).toEqual(expect.arrayContaining(["screenshotElement 11 e3 jpeg", "screenshotFullPage 11 jpeg"]));
  });

  it("fills forms and clicks at coordinates through the content script; checks their arguments", async () => {
    const { b, x } = setup();
    b.csReply.fill_form = { filled: 1, navStarted: false };
    b.csReply.click_xy = { target: "<canvas>", navStarted: false };
    b.csReply.drag_xy = { target: "<canvas>", navStarted: false };
    await expect(x.execute("browser_fill_form", { tabId: 10, fields: [{ ref: "e1", element: "Email", value: "a@b" }] })).resolves.toEqual({ tabId: 10 });
    expect(b.calls).toContain('cs 10 fill_form {"fields":[{"ref":"e1","value":"a@b","element":"Email"}]}');
    await expect(x.execute("browser_fill_form", { tabId: 10, fields: [{ ref: "e1" }] })).rejects.toThrow(/fields\[0\] needs/);
    await expect(x.execute("browser_fill_form", { tabId: 10, fields: [] })).rejects.toThrow(/non-empty list/);
    await x.execute("browser_click_xy", { tabId: 10, x: 5, y: 6, button: "right" });
    expect(b.calls).toContain('cs 10 click_xy {"x":5,"y":6,"button":"right"}');
    await expect(x.execute("browser_click_xy", { tabId: 10, x: "5", y: 6 })).rejects.toThrow(/x is required/);
    await expect(x.execute("browser_click_xy", { tabId: 10, x: 5, y: 6, button: "side" })).rejects.toThrow(/left, right or middle/);
    await x.execute("browser_drag_xy", { tabId: 10, startX: 1, startY: 2, endX: 3, endY: 4 });
    expect(b.calls).toContain('cs 10 drag_xy {"startX":1,"startY":2,"endX":3,"endY":4}');
  });

  it("reads network requests of shared tabs only and downloads profile-wide", async () => {
    const { b, x } = setup();
    await expect(x.execute("browser_network_requests", { tabId: 10, filter: "/api", since: 2 })).resolves.toEqual({
      tabId: 10, url: "https://example.com/a", requests: [], total: 0,
    });
    expect(b.calls).toContain('network 10 {"filter":"/api","since":2}');
    await expect(x.execute("browser_network_requests", { tabId: 13 })).rejects.toThrow(/not shared/);
    await expect(x.execute("browser_downloads", { wait: { urlContains: "x", timeoutMs: 5 } })).resolves.toEqual({ downloads: [] });
    expect(b.calls).toContain('downloads {"wait":{"urlContains":"x","timeoutMs":5}}');
  });

  it("arms the next dialog of a shared tab and passes the dialogs the page reports", async () => {
    const { b, x } = setup();
    await expect(x.execute("browser_handle_dialog", { accept: true, promptText: "Ada", tabId: 10 })).resolves.toEqual({ tabId: 10 });
    expect(b.arms).toEqual(['10 {"accept":true,"promptText":"Ada"}']);
    await expect(x.execute("browser_handle_dialog", { accept: "yes", tabId: 10 })).rejects.toThrow(/accept is required/);
    await expect(x.execute("browser_handle_dialog", { accept: false, tabId: 13 })).rejects.toThrow(/not shared/);
    const d = { type: "confirm", message: "Delete 3 files?", accepted: false, armed: false };
    b.csReply.hover = { dialogs: [d, { bogus: 1 }] };
    await expect(x.execute("browser_hover", { ref: "e1", tabId: 10 })).resolves.toEqual({ tabId: 10, dialogs: [d] });
    b.csReply.snapshot = { snapshot: "- button", dialogs: [d] };
    await expect(x.execute("browser_snapshot", { tabId: 10 })).resolves.toMatchObject({ dialogs: [d] });
  });

  it("lists shared tabs only, by slot, dropping closed ones", async () => {
    const { b, x } = setup();
    b.shares = { "11": 2, "10": 1, "77": 3 };
    await expect(x.execute("list_tabs", {})).resolves.toEqual({
      tabs: [
        { tabId: 10, slot: 1, url: "https://example.com/a", title: "T10", active: true, windowId: 1 },
        { tabId: 11, slot: 2, url: "https://example.com/b", title: "T11", active: false, windowId: 1 },
      ],
    });
  });

  it("opens, shares, switches to and closes tabs", async () => {
    const { b, x } = setup();
    b.shares = { "10": 1, "11": 3 };
    await expect(x.execute("browser_new_tab", { url: "https://example.com/new" })).resolves.toEqual({ tabId: 500, slot: 2 });
    await expect(x.execute("browser_new_tab", {})).resolves.toEqual({ tabId: 501, slot: 4 });
    // Shared before it loads the URL, so its first requests are recorded.
    expect(b.calls).toEqual(["open about:blank", "share 500", "navigate 500 https://example.com/new", "open about:blank", "share 501"]);
    await expect(x.execute("browser_switch_tab", { tabId: 500 })).resolves.toEqual({ activeTabId: 500 });
    await expect(x.execute("browser_close_tab", { tabId: 501 })).resolves.toEqual({ tabId: 501 });
    await expect(x.execute("browser_close_tab", { tabId: 13 })).rejects.toThrow("not shared");
    await expect(x.execute("browser_go_back", { tabId: 500 })).resolves.toEqual({ tabId: 500 });
    await expect(x.execute("browser_reload", {})).resolves.toEqual({ tabId: 10 });
    expect(b.calls.slice(5)).toEqual(["activate 500", "close 501", "back 500", "reload 10"]);
  });

  it("opens a data: URL in its new tab directly (Chrome refuses it in an open tab), then shares it", async () => {
    const { b, x } = setup();
    await expect(x.execute("browser_new_tab", { url: "data:text/html,<h1>x</h1>" })).resolves.toMatchObject({ tabId: 500 });
    expect(b.calls).toEqual(["open data:text/html,<h1>x</h1>", "share 500"]);
  });
});

describe("Executor: a navigation started by an action", () => {
  const page2 = "https://example.com/two";
  // What Chrome says when the page unloads while the content script is still working.
  const lost =
    "the page did not answer (A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received)";

  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Starts a request and tracks whether it has answered. */
  function run(x: Executor, type: string, payload: unknown, signal?: AbortSignal) {
    const state = { done: false, result: undefined as unknown, error: undefined as unknown };
    const promise = x.execute(type, payload, signal).then(
      (r) => {
        state.done = true;
        state.result = r;
      },
      (e: unknown) => {
        state.done = true;
        state.error = e;
      },
    );
    return { state, promise };
  }

  it("a click that navigates answers only after the new page has loaded", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => b.emit(id, { kind: "start", url: page2 });
    const { state } = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(state.done).toBe(false); // well past the grace period: still loading
    b.emit(10, { kind: "commit", url: page2 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(state.done).toBe(false); // committed, not loaded
    b.emit(10, { kind: "complete", url: page2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("a cancel from the server abandons the wait for the action's navigation (issue 12)", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => b.emit(id, { kind: "start", url: page2 });
    const ctl = new AbortController();
    const { state } = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 }, ctl.signal);
    await vi.advanceTimersByTimeAsync(2000);
    expect(state.done).toBe(false); // loading
    ctl.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("a request cancelled before it started does nothing", async () => {
    const { b, x } = setup();
    const ctl = new AbortController();
    ctl.abort();
    await expect(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 10 }, ctl.signal)).rejects.toThrow(
      /cancelled by the server before it started; nothing was done/,
    );
    expect(b.calls).toEqual([]);
  });

  it("listens before sending the action, so an immediate navigation is not missed", async () => {
    const { b, x } = setup({ realTiming: true });
    let listeningWhenSent = -1;
    b.csHook = () => {
      listeningWhenSent = b.navListeners.length;
    };
    const { promise } = run(x, "browser_click", { ref: "e1", element: "Go", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS + 100);
    await promise;
    expect(listeningWhenSent).toBe(1);
    expect(b.navListeners).toEqual([]);
  });

  it("a click that does not navigate answers after the short grace period, and stops listening", async () => {
    const { b, x } = setup({ realTiming: true });
    const { state } = run(x, "browser_click", { ref: "e1", element: "Toggle", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS / 2);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.watches).toBe(1);
    expect(b.navListeners).toEqual([]);
  });

  it("answers right after the reply when the page saw no navigation begin", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csReply.click = { navStarted: false };
    const { state } = run(x, "browser_click", { ref: "e1", element: "Toggle", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_QUIET_AFTER_REPLY_MS + 1);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("still waits for a load Chrome reports even when the page said none began", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csReply.click = { navStarted: false };
    b.csHook = (id) => b.emit(id, { kind: "start", url: page2 });
    const { state } = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(state.done).toBe(false);
    b.emit(10, { kind: "complete", url: page2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(state.done).toBe(true);
  });

  it("keeps the full grace period when the page saw a navigation begin", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csReply.click = { navStarted: true };
    const { state } = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_QUIET_AFTER_REPLY_MS + 1);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS);
    expect(state.done).toBe(true);
  });

  it("waits for a navigation the page starts a moment after the action (within the grace period)", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => {
      setTimeout(() => b.emit(id, { kind: "start", url: page2 }), NAV_GRACE_MS / 2);
      setTimeout(() => b.emit(id, { kind: "complete", url: page2 }), 1000);
    };
    const { state } = run(x, "browser_press_key", { key: "Enter", tabId: 10 });
    await vi.advanceTimersByTimeAsync(900);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(state.done).toBe(true);
    expect(state.error).toBeUndefined();
  });

  it("does not wait for a navigation that starts after the grace period", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => {
      setTimeout(() => b.emit(id, { kind: "start", url: page2 }), 1000);
    };
    const { state } = run(x, "browser_select_option", { ref: "e5", element: "Size", values: ["L"], tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS + 100);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000); // the late event reaches nobody
  });

  it("a reply lost because the page unloaded during the action is success when a navigation was seen", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csError = lost;
    b.csHook = (id) => {
      b.emit(id, { kind: "start", url: page2 });
      setTimeout(() => b.emit(id, { kind: "commit", url: page2 }), 50);
      setTimeout(() => b.emit(id, { kind: "complete", url: page2 }), 400);
    };
    const { state } = run(x, "browser_type", { ref: "e4", element: "Search", text: "cats", submit: true, tabId: 10 });
    await vi.advanceTimersByTimeAsync(300);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("a lost reply whose navigation event arrives just after it is success too", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csError = "Could not establish connection. Receiving end does not exist.";
    b.csHook = (id) => {
      setTimeout(() => b.emit(id, { kind: "start", url: page2 }), 20);
      setTimeout(() => b.emit(id, { kind: "complete", url: page2 }), 60);
    };
    const { state } = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 });
    await vi.advanceTimersByTimeAsync(100);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
  });

  it("a lost reply without any navigation is still an error", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csError = lost;
    const { state } = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS + 100);
    expect(state.done).toBe(true);
    expect((state.error as Error).message).toBe(lost);
    expect(b.navListeners).toEqual([]);
  });

  it("other content-script errors fail at once, even if the page navigates", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csError = "ref e12 is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it";
    b.csHook = (id) => b.emit(id, { kind: "start", url: page2 });
    const { state } = run(x, "browser_drag", { startRef: "e12", endRef: "e13", tabId: 10 });
    await vi.advanceTimersByTimeAsync(0);
    expect(state.done).toBe(true);
    expect((state.error as Error).message).toBe(b.csError);
    expect(b.navListeners).toEqual([]);
  });

  it("a page that never finishes loading is accepted after the load timeout, without an error", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => {
      b.emit(id, { kind: "start", url: page2 });
      b.emit(id, { kind: "commit", url: page2 });
    };
    const { state } = run(x, "browser_click", { ref: "e1", element: "Slow", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_LOAD_TIMEOUT_MS - 100);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("a same-document navigation (history API, fragment) counts as done at once", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => b.emit(id, { kind: "same-document", url: "https://example.com/a#details" });
    const { state } = run(x, "browser_click", { ref: "e1", element: "Details", tabId: 10 });
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("a navigation abandoned for another one waits for the second; one abandoned alone (a download) does not hold the answer", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => {
      b.emit(id, { kind: "start", url: page2 });
      setTimeout(() => b.emit(id, { kind: "error", url: page2, error: "net::ERR_ABORTED" }), 200);
      setTimeout(() => b.emit(id, { kind: "start", url: "https://example.com/three" }), 220);
      setTimeout(() => b.emit(id, { kind: "complete", url: "https://example.com/three" }), 800);
    };
    const first = run(x, "browser_click", { ref: "e1", element: "Next", tabId: 10 });
    await vi.advanceTimersByTimeAsync(700);
    expect(first.state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(first.state.done).toBe(true);

    b.csHook = (id) => {
      b.emit(id, { kind: "start", url: "https://example.com/report.pdf" });
      setTimeout(() => b.emit(id, { kind: "error", url: "https://example.com/report.pdf", error: "net::ERR_ABORTED" }), 30);
    };
    const second = run(x, "browser_click", { ref: "e2", element: "Download", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS + 100);
    expect(second.state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
    expect(b.navListeners).toEqual([]);
  });

  it("a tab closed by the action ends the wait", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = (id) => {
      b.emit(id, { kind: "start", url: page2 });
      setTimeout(() => b.emit(id, { kind: "closed" }), 100);
    };
    const { state } = run(x, "browser_click", { ref: "e1", element: "Close", tabId: 10 });
    await vi.advanceTimersByTimeAsync(150);
    expect(state.done).toBe(true);
    expect(state.error).toBeUndefined();
  });

  it("ignores other tabs' navigations and a load that was under way before the action", async () => {
    const { b, x } = setup({ realTiming: true });
    b.csHook = () => {
      b.emit(11, { kind: "start", url: page2 });
      b.emit(10, { kind: "complete", url: "https://example.com/a" });
    };
    const { state } = run(x, "browser_click", { ref: "e1", element: "Go", tabId: 10 });
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS + 10);
    expect(state).toEqual({ done: true, result: { tabId: 10 }, error: undefined });
  });

  it("watches only the actions that can navigate", async () => {
    const { b, x } = setup({ realTiming: true });
    const p = Promise.all([
      x.execute("browser_hover", { ref: "e3", element: "Menu", tabId: 10 }),
      x.execute("browser_scroll", { direction: "down", tabId: 10 }),
      x.execute("browser_type", { ref: "e4", element: "Email", text: "a", tabId: 10 }),
      x.execute("browser_upload_file", { ref: "e9", name: "a.txt", data: "aGk=", tabId: 10 }),
      x.execute("browser_snapshot", { tabId: 10 }),
    ]);
    await vi.advanceTimersByTimeAsync(0);
    await p;
    expect(b.watches).toBe(0);
    const q = Promise.all([
      x.execute("browser_click", { ref: "e1", element: "Go", tabId: 10 }),
      x.execute("browser_type", { ref: "e4", element: "Email", text: "a", submit: true, tabId: 10 }),
      x.execute("browser_press_key", { key: "Enter", tabId: 10 }),
      x.execute("browser_select_option", { ref: "e5", element: "Size", values: ["L"], tabId: 10 }),
      x.execute("browser_drag", { startRef: "e1", endRef: "e2", tabId: 10 }),
    ]);
    await vi.advanceTimersByTimeAsync(NAV_GRACE_MS + 10);
    await q;
    expect(b.watches).toBe(5);
    expect(b.navListeners).toEqual([]);
  });

  it("recognises Chrome's lost-reply errors", () => {
    for (const m of [
      lost,
      "The message port closed before a response was received.",
      "Could not establish connection. Receiving end does not exist.",
      "The page keeping the extension port is moved into back/forward cache, so the message channel is closed.",
      "the page in tab 10 did not answer even after injecting the content script (x); reload the tab and try again",
      'the page in tab 10 gave no answer to "click"; reload the tab and try again',
    ]) {
      expect(isLostReply(new Error(m)), m).toBe(true);
    }
    expect(isLostReply(new Error("ref e1 was not found on this page; take a new browser_snapshot and use a ref from it"))).toBe(false);
    expect(isLostReply(new Error("click failed in the page: boom"))).toBe(false);
  });

  it("browser_ask_user shows the request in a shared tab with the asking app; ask_wait waits by ask id", async () => {
    const { b, x } = setup();
    expect(await x.execute("browser_ask_user", { tabId: 10, message: "Sign in, please", waitMs: 0, app: "Claude Code" })).toEqual({ tabId: 10, askId: "a1", state: "pending" });
    expect(b.calls).toContain('ask 10 "Sign in, please" Claude Code 0');
    expect((await x.execute("ask_wait", { askId: "a1", waitMs: 50000 })) as { state: string }).toMatchObject({ state: "done" });
    expect(b.calls).toContain("askWait a1 50000");
    // The server names the ask (it ends it by that name if its call is cancelled); a malformed name is refused.
    await x.execute("browser_ask_user", { tabId: 10, message: "Sign in, please", askId: "5f0c2a9e7b1d", app: "Claude Code" });
    expect(b.calls).toContain('ask 10 "Sign in, please" Claude Code 0 5f0c2a9e7b1d');
    for (const bad of ["5F0C2A9E7B1D", "5f0c", 12, "5f0c2a9e7b1d0"]) {
      await expect(x.execute("browser_ask_user", { tabId: 10, message: "x", askId: bad })).rejects.toThrow(/askId must be 12 lowercase hex digits/);
    }
    expect(await x.execute("ask_end", { askId: "a1", why: "the AI app cancelled the call that waited for it" })).toEqual({ ended: true });
    expect(b.calls).toContain("askEnd a1 the AI app cancelled the call that waited for it");
    await expect(x.execute("ask_end", {})).rejects.toThrow(/askId/);
    await expect(x.execute("browser_ask_user", { tabId: 13, message: "x" })).rejects.toThrow(/not shared/);
    await expect(x.execute("browser_ask_user", { tabId: 10, message: "" })).rejects.toThrow(/message is required/);
    await expect(x.execute("ask_wait", { askId: "a1", waitMs: -1 })).rejects.toThrow(/waitMs/);
  });

  it("browser_site_tool_call runs only in a shared tab, with the asking app, name, frame and object arguments", async () => {
    const { b, x } = setup();
    const calls: unknown[] = [];
    b.siteToolCall = async (tabId, call, app) => {
      calls.push({ tabId, call, app });
      return { tool: { name: call.name, origin: "https://shop.example", frame: call.frame ?? 0 }, consent: "once", result: "ok" };
    };
    expect(await x.execute("browser_site_tool_call", { tabId: 10, name: "place_order", frame: 3, arguments: { sku: "tea" }, app: "Claude Code" })).toMatchObject({ tabId: 10, consent: "once", result: "ok" });
    expect(calls).toEqual([{ tabId: 10, call: { name: "place_order", frame: 3, args: { sku: "tea" } }, app: "Claude Code" }]);
    await expect(x.execute("browser_site_tool_call", { tabId: 13, name: "place_order" })).rejects.toThrow(/not shared/);
    await expect(x.execute("browser_site_tool_call", { tabId: 10, name: "x", frame: -1 })).rejects.toThrow(/frame must be/);
    await expect(x.execute("browser_site_tools", { tabId: 13 })).rejects.toThrow(/not shared/);
    expect(calls.length).toBe(1);
  });

  it("a snapshot counts the page's own tools, and stands without the count when listing fails", async () => {
    const { b, x } = setup();
    b.csReply.snapshot = { snapshot: "- heading \"Shop\" [ref=e1]" };
    b.siteTools = async () => ({ tools: [{ name: "a", origin: "o", frame: 0 }, { name: "b", origin: "o", frame: 0 }] });
    expect(await x.execute("browser_snapshot", { tabId: 10 })).toMatchObject({ siteTools: 2 });
    b.siteTools = async () => {
      throw new Error("frames busy");
    };
    const r = (await x.execute("browser_snapshot", { tabId: 10 })) as { siteTools?: number; snapshot: string };
    expect(r.siteTools).toBeUndefined();
    expect(r.snapshot).toContain("Shop");
  });

  it("a snapshot takes the count from siteToolCount when the port has it, never listing", async () => {
    const { b, x } = setup();
    b.csReply.snapshot = { snapshot: "- heading \"Shop\" [ref=e1]" };
    let listed = 0;
    b.siteTools = async () => {
      listed++;
      return { tools: [] };
    };
    b.siteToolCount = async () => 4;
    expect(await x.execute("browser_snapshot", { tabId: 10 })).toMatchObject({ siteTools: 4 });
    expect(listed).toBe(0);
    b.siteToolCount = async () => {
      throw new Error("frames busy");
    };
    expect(((await x.execute("browser_snapshot", { tabId: 10 })) as { siteTools?: number }).siteTools).toBeUndefined();
  });
});
