// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import {
  ConsoleBuffer,
  EVT_ENTRY,
  EVT_HELLO,
  EVT_REPLAY,
  formatArgs,
  formatDialog,
  installPageHooks,
  parseReplay,
  type ConsoleEntry,
} from "./console";

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
    const sent: ConsoleEntry[] = [];
    const buffer = installPageHooks(win, (e) => sent.push(e));
    expect(installPageHooks(win, () => {})).toBe(buffer); // idempotent

    win.console.log("hi", 2);
    expect(origLog).toHaveBeenCalledWith("hi", 2);
    expect(win.confirm("Delete?")).toBe(true);
    expect(win.prompt("Name?", "Ada")).toBe("Ada");
    expect(win.prompt("Age?")).toBe("");
    expect(win.alert("Saved")).toBeUndefined();
    win.dispatchEvent(new ErrorEvent("error", { message: "bad thing", error: new TypeError("bad thing") }));

    expect(sent.map((e) => [e.level, e.text.split("\n")[0]])).toEqual([
      ["log", "hi 2"],
      ["dialog", 'confirm("Delete?") → true'],
      ["dialog", 'prompt("Name?", "Ada") → "Ada"'],
      ["dialog", 'prompt("Age?") → ""'],
      ["dialog", 'alert("Saved")'],
      ["error", "Uncaught TypeError: bad thing"],
    ]);
    expect(typeof sent[0]!.time).toBe("number");
    expect(buffer.list()).toEqual(sent);

    // The isolated side's replay handshake, as the page-hooks entrypoint wires it.
    document.addEventListener(EVT_HELLO, () =>
      document.dispatchEvent(new CustomEvent(EVT_REPLAY, { detail: JSON.stringify(buffer.list()) })),
    );
    let replayed: ConsoleEntry[] = [];
    document.addEventListener(EVT_REPLAY, (ev) => (replayed = parseReplay((ev as CustomEvent).detail)));
    document.dispatchEvent(new CustomEvent(EVT_HELLO));
    expect(replayed).toEqual(sent);
    expect(EVT_ENTRY).toMatch(/monkbrowse/);
  });
});
