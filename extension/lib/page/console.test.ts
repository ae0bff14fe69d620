// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import {
  ConsoleBuffer,
  channelOf,
  newSecret,
  formatArgs,
  formatDialog,
  parseDialog,
  type HookEntry,
  parseReplay,
  type ConsoleEntry,
} from "./console";
import { installPageHooks } from "./page-hooks";

describe("formatArgs", () => {
  it("formats like DevTools text", () => {
    expect(formatArgs(["hello", 1, { a: [1, 2] }])).toBe('hello 1 {"a":[1,2]}');
    expect(formatArgs(["%s has %d items%c!", "cart", 3.7, "color:red"])).toBe("cart has 3 items!");
    expect(formatArgs([null, undefined, true])).toBe("null undefined true");
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.self = cyclic;
    expect(formatArgs([cyclic])).toBe('{"n":1,"self":"[Circular]"}');
    const err = new Error("boom");
    expect(formatArgs([err])).toContain("boom");
  });

  it("bounds long entries", () => {
    expect(formatArgs(["x".repeat(10_000)]).length).toBeLessThan(5100);
  });
});

describe("formatDialog", () => {
  it("writes what the page asked and what it got", () => {
    expect(formatDialog("alert", "Saved", undefined)).toBe('alert("Saved")');
    expect(formatDialog("confirm", "Delete?", true)).toBe('confirm("Delete?") → true');
    expect(formatDialog("confirm", "Delete?", false, undefined, "default")).toBe('confirm("Delete?") → false (dismissed by default)');
    expect(formatDialog("prompt", "Name?", "Ada", "Ada")).toBe('prompt("Name?", "Ada") → "Ada"');
    expect(formatDialog("prompt", "Name?", "", undefined)).toBe('prompt("Name?") → ""');
  });
});

describe("ConsoleBuffer", () => {
  it("keeps the most recent entries", () => {
    const b = new ConsoleBuffer(3);
    for (let i = 0; i < 5; i++) b.push({ level: "log", text: String(i), time: i });
    expect(b.list().map((e) => e.text)).toEqual(["2", "3", "4"]);
  });
});

describe("installPageHooks", () => {
  it("records console calls, keeps the original behaviour, answers dialogs, replays on hello", () => {
    const win = window as unknown as Window & typeof globalThis;
    const origLog = vi.fn();
    win.console.log = origLog;
    // happy-dom has no dialogs: stand-ins for the browser's natives.
    const nativeConfirm = vi.fn(() => true);
    (win as unknown as Record<string, unknown>).confirm = nativeConfirm;
    (win as unknown as Record<string, unknown>).alert = vi.fn();
    (win as unknown as Record<string, unknown>).prompt = vi.fn(() => "typed");
    const sent: HookEntry[] = [];
    const { hooks: h, fresh } = installPageHooks(win, (e) => sent.push(e));
    const hooks = h!;
    expect(fresh).toBe(true);
    const again = installPageHooks(win, () => {});
    expect(again.hooks).toBe(hooks); // idempotent
    expect(again.fresh).toBe(false);
    const buffer = hooks.buffer;

    win.console.log("hi", 2);
    expect(origLog).toHaveBeenCalledWith("hi", 2);
    // Never a silent yes: confirm dismissed, prompt cancelled, alert acknowledged.
    expect(win.confirm("Delete?")).toBe(false);
    expect(win.prompt("Name?", "Ada")).toBeNull();
    expect(win.alert("Saved")).toBeUndefined();
    win.dispatchEvent(new ErrorEvent("error", { message: "bad thing", error: new TypeError("bad thing") }));

    expect(sent.map((e) => [e.level, e.text.split("\n")[0]])).toEqual([
      ["log", "hi 2"],
      ["dialog", 'confirm("Delete?") → false (dismissed by default)'],
      ["dialog", 'prompt("Name?", "Ada") → null (cancelled by default)'],
      ["dialog", 'alert("Saved") (acknowledged)'],
      ["error", "Uncaught TypeError: bad thing"],
    ]);
    expect(sent[1]!.dialog).toEqual({ type: "confirm", message: "Delete?", accepted: false, armed: false });
    expect(typeof sent[0]!.time).toBe("number");
    expect(buffer.list()).toEqual(sent.map(({ dialog: _d, ...e }) => e));

    // An armed answer is used by one dialog only.
    hooks.arm({ accept: true, promptText: "Grace", expiresAt: Date.now() + 60_000 });
    expect(win.prompt("Name?", "Ada")).toBe("Grace");
    expect(win.confirm("Again?")).toBe(false);
    expect(sent.at(-2)!.dialog).toEqual({ type: "prompt", message: "Name?", accepted: true, armed: true, answer: "Grace" });
    hooks.arm({ accept: true, expiresAt: Date.now() + 60_000 });
    expect(win.confirm("Delete 3 files?")).toBe(true);
    expect(sent.at(-1)!.text).toBe('confirm("Delete 3 files?") → true (accepted as browser_handle_dialog asked)');
    hooks.arm({ accept: true, expiresAt: Date.now() - 1 }); // expired
    expect(win.confirm("Late?")).toBe(false);

    // The isolated side's replay handshake, as the page-hooks entrypoint wires it.
    const ch = channelOf(newSecret());
    document.addEventListener(ch.hello, () =>
      document.dispatchEvent(new CustomEvent(ch.replay, { detail: JSON.stringify(buffer.list()) })),
    );
    let replayed: ConsoleEntry[] = [];
    document.addEventListener(ch.replay, (ev) => (replayed = parseReplay((ev as CustomEvent).detail)));
    document.dispatchEvent(new CustomEvent(ch.hello));
    expect(replayed).toEqual(buffer.list());
    expect(ch.entry).toMatch(/^__monkbrowse:[0-9a-f]{32}:entry$/);

    // Dormant (the tab was unshared): the natives are back and nothing is recorded.
    const n = sent.length;
    hooks.deactivate();
    expect(win.console.log).toBe(origLog);
    expect(win.confirm).toBe(nativeConfirm);
    win.console.log("quiet");
    expect(sent.length).toBe(n);
    // A stale injection (a call still running when the tab was unshared)
    // re-runs the hooks file: the sleeping hooks refuse to wake.
    installPageHooks(win, () => {});
    hooks.activate();
    expect(hooks.active).toBe(false);
    expect(win.confirm).toBe(nativeConfirm);
    win.console.log("still quiet");
    expect(sent.length).toBe(n);
    // Shared again (a fresh share wakes them): hooked again.
    hooks.wake();
    expect(hooks.active).toBe(true);
    win.console.log("loud");
    expect(sent.length).toBe(n + 1);
    expect(parseDialog({ dialog: { type: "confirm", message: "x", accepted: 1 } })).toEqual({ type: "confirm", message: "x", accepted: false, armed: false });
    expect(parseDialog({ dialog: { type: "beforeunload", message: "x" } })).toBeNull();
  });
});
