import { describe, expect, it, vi } from "vitest";
import { afterEither, DIAG_MAX, DiagLog, describeError, entry, formatDiag, keepInMemory, MESSAGE_MAX, memoryStore, recent, report, reported, setDiagSink, WHERE_MAX, type DiagEntry } from "./diag";

describe("DiagLog", () => {
  it("keeps the last DIAG_MAX entries, oldest first, all of those added together", async () => {
    const store = memoryStore();
    const log = new DiagLog(store);
    const adds: Promise<void>[] = [];
    for (let i = 0; i < DIAG_MAX + 5; i++) adds.push(log.add(entry("w", `m${i}`, i)));
    await Promise.all(adds);
    const got = await log.list();
    expect(got).toHaveLength(DIAG_MAX);
    expect(got[0]?.message).toBe("m5");
    expect(got[DIAG_MAX - 1]?.message).toBe(`m${DIAG_MAX + 4}`);
    await log.clear();
    expect(await log.list()).toEqual([]);
  });

  it("never rejects when the store fails, and says so on the console", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const log = new DiagLog({ get: async () => [], set: async () => Promise.reject(new Error("quota")) });
    await expect(log.add(entry("w", "m", 1))).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]?.[0])).toContain("w: m");
    warn.mockRestore();
  });
});

describe("report", () => {
  it("goes to the sink with where, the error's message and the time; reported() is a rejection handler", async () => {
    const got: DiagEntry[] = [];
    setDiagSink((e) => got.push(e));
    report("debugger: Network.enable", new Error("Cannot access a chrome:// URL"));
    await expect(Promise.reject(new TypeError("no tab")).catch(reported("screenshot: activate"))).resolves.toBeUndefined();
    expect(got.map((e) => [e.where, e.message])).toEqual([
      ["debugger: Network.enable", "Cannot access a chrome:// URL"],
      ["screenshot: activate", "TypeError: no tab"],
    ]);
    expect(got[0]?.t).toBeGreaterThan(0);
  });

  it("keeps reports made before the sink is set, and hands them over when it is", () => {
    setDiagSink(() => {
      throw new Error("sink down");
    });
    report("early", "first");
    expect(recent().map((e) => e.where)).toEqual(["early", "diagnostics"]);
    const got: DiagEntry[] = [];
    setDiagSink((e) => got.push(e));
    expect(got.map((e) => [e.where, e.message])).toEqual([
      ["early", "first"],
      ["diagnostics", "sink down"],
    ]);
    expect(recent()).toEqual([]);
    keepInMemory(entry("kept", "x", 1));
    expect(recent()).toHaveLength(1);
  });
});

describe("bounds", () => {
  it("cuts long messages and labels, keeps no stack, and names odd values", () => {
    const e = new Error("x".repeat(5000));
    expect(describeError(e)).toHaveLength(MESSAGE_MAX);
    expect(describeError(e)).not.toContain("at ");
    expect(entry("w".repeat(500), "m", 1).where).toHaveLength(WHERE_MAX);
    expect(describeError({ code: 5 })).toBe('{"code":5}');
    expect(describeError(undefined)).toBe("undefined");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeError(cyclic)).toBe("[object Object]");
    expect(describeError("multi\nline  text")).toBe("multi line text");
    expect(describeError(new Error('Cannot access contents of url "https://bank.example/acct?id=7". Or chrome://settings/'))).toBe(
      'Cannot access contents of url "<url>". Or <url>',
    );
  });

  it("formats one line an entry", () => {
    expect(formatDiag([{ t: 0, where: "w", message: "m" }])).toBe("1970-01-01T00:00:00.000Z  w: m");
  });
});

describe("afterEither", () => {
  it("waits for the promise and never rejects", async () => {
    await expect(afterEither(Promise.reject(new Error("x")))).resolves.toBeUndefined();
    await expect(afterEither(Promise.resolve(5))).resolves.toBeUndefined();
  });
});
