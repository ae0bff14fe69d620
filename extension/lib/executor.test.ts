import { describe, expect, it } from "vitest";
import { Executor, type BrowserPort, type TabLike } from "./executor";
import type { CsOp } from "./messages";
import { shareTab } from "./slots";
import type { Shares } from "./storage";

class FakeBrowser implements BrowserPort {
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
  async share(id: number) {
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
  async content(id: number, op: CsOp, args: unknown): Promise<never> {
    this.calls.push(`cs ${id} ${op} ${JSON.stringify(args)}`);
    if (this.csError) throw new Error(this.csError);
    return (this.csReply[op] ?? {}) as never;
  }
  refBases = new Map<number, number>();
  async refBase(id: number) {
    return this.refBases.get(id) ?? 0;
  }
  async saveRefBase(id: number, high: number) {
    this.refBases.set(id, high);
  }
  async screenshot(t: TabLike) {
    this.calls.push(`screenshot ${t.id}`);
    return "iVBORw0KGgo=";
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
  async closeTab(id: number) {
    this.calls.push(`close ${id}`);
    this.tabs.delete(id);
  }
}

function setup() {
  const b = new FakeBrowser();
  b.add(10, "https://example.com/a", { active: true });
  b.add(11, "https://example.com/b");
  b.add(12, "chrome://settings/");
  b.add(13, "https://example.com/c");
  b.active = 10;
  b.shares = { "10": 1, "11": 2, "12": 3 };
  return { b, x: new Executor(b) };
}

describe("Executor", () => {
  it("refuses tabs that are not shared, with the message the AI sees", async () => {
    const { x } = setup();
    await expect(x.execute("browser_click", { ref: "e1", element: "Go", tabId: 13 })).rejects.toThrow(
      "tab 13 is not shared with the AI; the user can share it from the monkbrowse popup",
    );
    await expect(x.execute("getUrl", { tabId: 999 })).rejects.toThrow("tab 999 is not shared");
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
    await expect(x.execute("browser_screenshot", { tabId: 11 })).resolves.toEqual({ tabId: 11, data: "iVBORw0KGgo=" });
    await expect(x.execute("browser_evaluate", { expression: "6*2", tabId: 10 })).resolves.toEqual({ tabId: 10, result: 12 });
    expect(b.calls).toContain('cs 10 get_text {"ref":"e2"}');
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
    expect(b.calls).toEqual(["open https://example.com/new", "open about:blank"]);
    await expect(x.execute("browser_switch_tab", { tabId: 500 })).resolves.toEqual({ activeTabId: 500 });
    await expect(x.execute("browser_close_tab", { tabId: 501 })).resolves.toEqual({ tabId: 501 });
    await expect(x.execute("browser_close_tab", { tabId: 13 })).rejects.toThrow("not shared");
    await expect(x.execute("browser_go_back", { tabId: 500 })).resolves.toEqual({ tabId: 500 });
    await expect(x.execute("browser_reload", {})).resolves.toEqual({ tabId: 10 });
    expect(b.calls.slice(2)).toEqual(["activate 500", "close 501", "back 500", "reload 10"]);
  });
});
