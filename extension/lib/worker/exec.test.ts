// The exec module with a fake port: the pause gate (before the page is
// asked anything, and again after the targets are read), the abort registry
// (the server's cancel, Stop, unshare) and the call watch.
import { describe, expect, it, vi } from "vitest";
import { CodedError, errorCode } from "../peer";
import { ERROR_CODES } from "../protocol.gen";
import { pausedIn, type Pause } from "../activity";
import { AbortRegistry, Exec, untilAborted, withNotice, type CallWatch, type ExecPort } from "./exec";

/** A deferred promise the test settles. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A fake service worker: the pause the test sets, and a record of what each call did. */
function fakePort(over: Partial<ExecPort> = {}) {
  const state = { pause: { paused: false } as Pause };
  const events: string[] = [];
  const watches: Array<{ type: string; done?: unknown; failed?: unknown }> = [];
  const pending = new Map<string, ReturnType<typeof deferred<unknown>>>();
  const port: ExecPort = {
    ready: async () => void events.push("ready"),
    pausedFor: (tabId) => {
      const why = pausedIn(state.pause, tabId);
      return why ? new CodedError(ERROR_CODES.paused, `paused (${why})`) : undefined;
    },
    logPaused: (type, _payload, err) => {
      events.push(`refused ${type}`);
      return err;
    },
    watch: async (type) => {
      events.push(`watch ${type}`);
      const w: { type: string; done?: unknown; failed?: unknown } = { type };
      watches.push(w);
      const cw: CallWatch = { done: (r) => void (w.done = r), failed: (e) => void (w.failed = e) };
      return cw;
    },
    beginActing: (tabId) => {
      events.push(`own input ${tabId}`);
      return () => void events.push(`own input ends ${tabId}`);
    },
    actingIn: (tabId, app) => {
      events.push(`badge ${tabId} ${app}`);
      return () => void events.push(`badge ends ${tabId}`);
    },
    execute: (type, payload) => {
      events.push(`execute ${type}`);
      const key = String((payload as { key?: string } | null)?.key ?? type);
      if (!pending.has(key)) return Promise.resolve({ ran: type });
      return pending.get(key)!.promise;
    },
    answer: async (_type, result) => result,
    failure: async (e) => e,
    ...over,
  };
  /** The next execute of payload {key} waits until the test settles it. */
  const hold = (key: string) => {
    const d = deferred<unknown>();
    pending.set(key, d);
    return d;
  };
  return { port, state, events, watches, hold };
}

/** What p settled to by the next task (microtasks all ran): a call that should answer at once, and did not, shows "pending". */
const by = (p: Promise<string>) => Promise.race([p, new Promise<string>((r) => setImmediate(() => r("pending")))]);

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "ran",
    (e: unknown) => errorCode(e) ?? (e as Error).message,
  );

describe("the pause gate", () => {
  it("lets a call run while nothing is stopped", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    await expect(exec.run({ type: "browser_click", payload: { tabId: 7, ref: "e1" }, callId: "c1" })).resolves.toEqual({ ran: "browser_click" });
    expect(f.events).toEqual(["ready", "watch browser_click", "own input 7", "badge 7 AI app", "execute browser_click", "own input ends 7", "badge ends 7"]);
    expect(f.watches[0]!.done).toEqual({ ran: "browser_click" });
    expect(exec.running.size).toBe(0);
  });

  it("refuses every call while the profile is stopped, before the page is asked anything, and logs it", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    f.state.pause = { paused: true, since: 1 };
    expect(await codeOf(exec.run({ type: "browser_click", payload: { tabId: 7, ref: "e1" } }))).toBe(ERROR_CODES.paused);
    expect(await codeOf(exec.run({ type: "browser_snapshot", payload: {} }))).toBe(ERROR_CODES.paused);
    // No watch: the page is not even asked for the targets.
    expect(f.events).toEqual(["ready", "refused browser_click", "ready", "refused browser_snapshot"]);
  });

  it("refuses a stopped tab's calls only, and runs them again after Resume", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    f.state.pause = { paused: false, tabs: [7] };
    expect(await codeOf(exec.run({ type: "browser_type", payload: { tabId: 7, ref: "e2", text: "x" } }))).toBe(ERROR_CODES.paused);
    expect(await codeOf(exec.run({ type: "browser_click", payload: { tabId: 8, ref: "e1" } }))).toBe("ran");
    f.state.pause = { paused: false, tabs: [] };
    expect(await codeOf(exec.run({ type: "browser_type", payload: { tabId: 7, ref: "e2", text: "x" } }))).toBe("ran");
    expect(f.events.filter((e) => e.startsWith("execute"))).toEqual(["execute browser_click", "execute browser_type"]);
  });

  it("refuses a call Stop came for while its targets were read: nothing runs", async () => {
    const read = deferred<CallWatch>();
    const f = fakePort({ watch: () => read.promise });
    const exec = new Exec(f.port);
    const run = codeOf(exec.run({ type: "browser_click", payload: { tabId: 7, ref: "e1" }, callId: "c1" }));
    await Promise.resolve();
    f.state.pause = { paused: true, since: 1 };
    read.resolve({ done: () => undefined, failed: () => undefined });
    expect(await run).toBe(ERROR_CODES.paused);
    expect(f.events).toEqual(["ready", "refused browser_click"]);
    expect(exec.running.size).toBe(0);
  });
});

describe("the abort registry", () => {
  it("Stop answers a running call at once with the refusal, however long its work takes", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    const work = f.hold("slow");
    const run = codeOf(exec.run({ type: "browser_click", payload: { tabId: 7, key: "slow" }, callId: "c1" }));
    await Promise.resolve();
    await Promise.resolve();
    expect(exec.running.size).toBe(1);
    // Another tab's Stop leaves it running.
    f.state.pause = { paused: false, tabs: [8] };
    exec.running.abortPaused(8, f.port.pausedFor);
    f.state.pause = { paused: true, since: 1 };
    exec.running.abortPaused(undefined, f.port.pausedFor);
    expect(await by(run)).toBe(ERROR_CODES.paused);
    expect(f.watches[0]!.failed).toBeInstanceOf(CodedError);
    // The badge and the person's own input end with the call, though its work goes on.
    expect(f.events.slice(-2)).toEqual(["own input ends 7", "badge ends 7"]);
    expect(exec.running.size).toBe(0);
    work.resolve({ late: true });
  });

  it("a tab's Stop aborts that tab's calls only", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    f.hold("a");
    const b = f.hold("b");
    const onA = codeOf(exec.run({ type: "browser_click", payload: { tabId: 7, key: "a" }, callId: "a" }));
    const onB = codeOf(exec.run({ type: "browser_click", payload: { tabId: 8, key: "b" }, callId: "b" }));
    for (let i = 0; i < 4; i++) await Promise.resolve();
    expect(exec.running.size).toBe(2);
    f.state.pause = { paused: false, tabs: [7] };
    exec.running.abortPaused(7, f.port.pausedFor);
    expect(await by(onA)).toBe(ERROR_CODES.paused);
    expect(await by(onB)).toBe("pending");
    b.resolve({ ok: 1 });
    expect(await onB).toBe("ran");
  });

  it("the server's cancel answers the named call with cancelled; an unknown or ended call is no-op", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    f.hold("slow");
    const run = codeOf(exec.run({ type: "browser_snapshot", payload: { tabId: 3, key: "slow" }, callId: "c9" }));
    for (let i = 0; i < 4; i++) await Promise.resolve();
    exec.cancel("other");
    expect(exec.running.size).toBe(1);
    exec.cancel("c9");
    expect(await by(run)).toBe(ERROR_CODES.cancelled);
    expect(exec.running.size).toBe(0);
    exec.cancel("c9");
  });

  it("the server's cancel that comes while the pause is loaded or the targets are read is not lost: the call never runs", async () => {
    vi.useFakeTimers();
    try {
      // A worker that just woke reads its stored pause, and the page its
      // targets, slowly: the offscreen document's cancel comes meanwhile.
      const after = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
      for (const slow of ["ready", "watch"] as const) {
        const f = fakePort();
        const exec = new Exec({
          ...f.port,
          ready: async () => {
            if (slow === "ready") await after(100);
            await f.port.ready();
          },
          watch: async (type, payload) => {
            if (slow === "watch") await after(100);
            return f.port.watch(type, payload);
          },
        });
        const run = codeOf(exec.run({ type: "ask_wait", payload: { askId: "a1", waitMs: 3000 }, callId: "c1" }));
        await vi.advanceTimersByTimeAsync(50);
        exec.cancel("c1");
        await vi.advanceTimersByTimeAsync(100);
        expect(await run, slow).toBe(ERROR_CODES.cancelled);
        expect(f.events, slow).not.toContain("execute ask_wait");
        expect(f.watches[0]!.failed, slow).toBeInstanceOf(CodedError);
        expect(exec.running.size).toBe(0);
      }
      // An unshare meanwhile stops it the same way.
      const f = fakePort();
      const exec = new Exec({ ...f.port, watch: async (type, payload) => (await after(100), f.port.watch(type, payload)) });
      const run = codeOf(exec.run({ type: "browser_click", payload: { tabId: 7, ref: "e1" }, callId: "c2" }));
      await vi.advanceTimersByTimeAsync(50);
      exec.running.abortTab(7, new CodedError(ERROR_CODES.unshared, "tab 7 is no longer shared"));
      await vi.advanceTimersByTimeAsync(100);
      expect(await run).toBe(ERROR_CODES.unshared);
      expect(f.events).not.toContain("execute browser_click");
    } finally {
      vi.useRealTimers();
    }
  });

  it("an unshare aborts the tab's calls with its reason", async () => {
    const reg = new AbortRegistry();
    const a = new AbortController();
    const b = new AbortController();
    const endA = reg.add("a", 7, a);
    reg.add("b", 8, b);
    reg.add(undefined, 7, new AbortController()); // no callId: not registered
    expect(reg.size).toBe(2);
    reg.abortTab(7, new Error("tab 7 is no longer shared"));
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as Error).message).toBe("tab 7 is no longer shared");
    expect(b.signal.aborted).toBe(false);
    endA();
    expect(reg.size).toBe(1);
  });

  it("untilAborted answers an already aborted signal without waiting for the work", async () => {
    const ctl = new AbortController();
    ctl.abort(new Error("gone"));
    await expect(untilAborted(new Promise(() => undefined), ctl.signal)).rejects.toThrow("gone");
  });
});

describe("the call watch and the answer", () => {
  it("a failed call is watched as failed, the error reaches the server with the cancel notice and its code", async () => {
    const f = fakePort({
      execute: async () => {
        throw new CodedError(ERROR_CODES.not_shared, "tab 7 is not shared");
      },
      failure: async (e) => withNotice(e, "the person cancelled debugging"),
    });
    const exec = new Exec(f.port);
    const err = await exec.run({ type: "browser_click", payload: { tabId: 7, ref: "e1" } }).catch((e: unknown) => e);
    expect(errorCode(err)).toBe(ERROR_CODES.not_shared);
    expect((err as Error).message).toBe("tab 7 is not shared\n\nthe person cancelled debugging");
    expect(f.watches[0]!.failed).toBeInstanceOf(CodedError);
    expect(f.watches[0]!.done).toBeUndefined();
    expect(f.events.slice(-2)).toEqual(["own input ends 7", "badge ends 7"]);
  });

  it("the person's own edits are not marked as monkbrowse's input, and unlogged calls get no badge", async () => {
    const f = fakePort();
    const exec = new Exec(f.port);
    await exec.run({ type: "person_edits", payload: { tabId: 4 } });
    expect(f.events.some((e) => e.startsWith("own input"))).toBe(false);
    await exec.run({ type: "list_tabs", payload: {} });
    expect(f.events.some((e) => e.startsWith("badge"))).toBe(false);
  });

  it("the answer is the port's (the app named by the request)", async () => {
    const f = fakePort({ answer: async (type, r, app) => ({ type, r, app }) });
    const exec = new Exec(f.port);
    await expect(exec.run({ type: "browser_new_tab", payload: { tabId: 1, app: "Claude" } })).resolves.toEqual({
      type: "browser_new_tab",
      r: { ran: "browser_new_tab" },
      app: "Claude",
    });
  });
});
