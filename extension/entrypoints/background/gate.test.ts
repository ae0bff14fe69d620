import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorCode } from "../../lib/peer";
import { ERROR_CODES } from "../../lib/protocol.gen";
import { assertShared, attachDebugger, executeInTab, setShareState } from "./gate";

afterEach(() => {
  vi.unstubAllGlobals();
});

const root = join(__dirname, "..", "..");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|tsx|mts)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(p);
  }
  return out;
}

describe("the share gate is the only way to inject or attach", () => {
  it("no source but gate.ts calls chrome.scripting.executeScript or chrome.debugger.attach", () => {
    const offenders: string[] = [];
    for (const dir of ["entrypoints", "lib"]) {
      for (const f of sources(join(root, dir))) {
        const rel = relative(root, f);
        if (rel === join("entrypoints", "background", "gate.ts")) continue;
        const text = readFileSync(f, "utf8");
        // Any spelling that reaches the two APIs: chrome.scripting.executeScript,
        // scripting["executeScript"], debugger.attach, a destructured executeScript.
        if (/\bexecuteScript\b/.test(text.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, ""))) offenders.push(`${rel}: executeScript`);
        if (/\bdebugger\s*(\.\s*attach\b|\[\s*["']attach["']\s*\])/.test(text)) offenders.push(`${rel}: debugger.attach`);
      }
    }
    expect(offenders, "use executeInTab / attachDebugger from entrypoints/background/gate.ts").toEqual([]);
  });
});

describe("executeInTab and attachDebugger", () => {
  function fakeChrome() {
    const executeScript = vi.fn(async () => [{ result: true }]);
    const attach = vi.fn(async () => undefined);
    vi.stubGlobal("chrome", { scripting: { executeScript }, debugger: { attach } });
    return { executeScript, attach };
  }

  it("read the live share state right before the action: an unshared tab is refused with code unshared and nothing reaches Chrome", async () => {
    const shared = new Set([7]);
    let ready!: () => void;
    const loading = new Promise<void>((r) => (ready = r));
    setShareState({ ready: () => loading, shared: (id) => shared.has(id) });
    const { executeScript, attach } = fakeChrome();

    // The calls wait for the share state; the person unshares meanwhile.
    const inj = executeInTab({ target: { tabId: 7 }, func: () => true });
    const att = attachDebugger(7, "1.3");
    shared.delete(7);
    ready();
    const e1 = await inj.catch((e: unknown) => e);
    const e2 = await att.catch((e: unknown) => e);
    expect(errorCode(e1)).toBe(ERROR_CODES.unshared);
    expect(String((e1 as Error).message)).toMatch(/^the person stopped sharing tab 7/);
    expect(errorCode(e2)).toBe(ERROR_CODES.unshared);
    expect(executeScript).not.toHaveBeenCalled();
    expect(attach).not.toHaveBeenCalled();
    await expect(assertShared(7)).rejects.toMatchObject({ code: ERROR_CODES.unshared });

    // Putting our hooks to sleep is the one injection allowed in an unshared tab.
    await executeInTab({ target: { tabId: 7 }, func: () => true }, { evenUnshared: "to make it dormant" });
    expect(executeScript).toHaveBeenCalledTimes(1);

    shared.add(7);
    await executeInTab({ target: { tabId: 7 }, func: () => true });
    await attachDebugger(7, "1.3");
    expect(executeScript).toHaveBeenCalledTimes(2);
    expect(attach).toHaveBeenCalledWith({ tabId: 7 }, "1.3");
  });
});
