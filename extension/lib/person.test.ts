import { describe, expect, it } from "vitest";
import { Acting, PersonLog, personNavigation, PERSON_LIMIT, LINK_AFTER_INPUT_MS, type KV } from "./person";

/** chrome.storage.session's shape over a Map, values through JSON as Chrome does. */
class FakeStorage implements KV {
  readonly data = new Map<string, string>();
  async get(key: string): Promise<Record<string, unknown>> {
    const v = this.data.get(key);
    return v === undefined ? {} : { [key]: JSON.parse(v) as unknown };
  }
  async set(items: Record<string, unknown>): Promise<void> {
    for (const [k, v] of Object.entries(items)) this.data.set(k, JSON.stringify(v));
  }
  async remove(key: string): Promise<void> {
    this.data.delete(key);
  }
}

describe("the person's edits", () => {
  it("numbers edits, collapses the same one repeated, answers what came after since", async () => {
    const log = new PersonLog(new FakeStorage());
    expect(await log.since(7, undefined)).toEqual({ seq: 0, edits: [] });
    await log.add(7, { kind: "typed", role: "textbox", name: "Notes", ref: "e12" });
    await log.add(7, { kind: "typed", role: "textbox", name: "Notes", ref: "e12" });
    await log.add(7, { kind: "clicked", role: "button", name: "Save", ref: "e15" });
    const all = await log.since(7, 0);
    expect(all.seq).toBe(3);
    expect(all.edits).toEqual([
      { kind: "typed", role: "textbox", name: "Notes", ref: "e12", seq: 2, count: 2 },
      { kind: "clicked", role: "button", name: "Save", ref: "e15", seq: 3 },
    ]);
    // An app's first call: the number only.
    expect(await log.since(7, undefined)).toEqual({ seq: 3, edits: [] });
    expect((await log.since(7, 2)).edits.map((e) => e.kind)).toEqual(["clicked"]);
    expect((await log.since(7, 3)).edits).toEqual([]);
    // A number from before the browser restarted: everything kept is new.
    expect((await log.since(7, 99)).edits).toHaveLength(2);
    // Other tabs are apart.
    expect(await log.since(8, 0)).toEqual({ seq: 0, edits: [] });
  });

  it("keeps the last few, drops a ref that is not one, cuts long names", async () => {
    const log = new PersonLog(new FakeStorage());
    for (let i = 0; i < PERSON_LIMIT + 5; i++) await log.add(1, { kind: "clicked", role: "button", name: `B${i}`, ref: i === 0 ? "javascript:x" : `e${i}` });
    const r = await log.since(1, 0);
    expect(r.edits).toHaveLength(PERSON_LIMIT);
    expect(r.edits[0]?.name).toBe("B5");
    await log.add(2, { kind: "typed", name: "x".repeat(500), ref: "not a ref" });
    const e = (await log.since(2, 0)).edits[0];
    expect(e?.ref).toBeUndefined();
    expect([...(e?.name ?? "")].length).toBe(80);
  });

  it("takes input while a request for the tab runs for monkbrowse's own, and none after it ended", () => {
    const a = new Acting();
    expect(a.actingAt(1, 1000)).toBe(false);
    const end = a.begin(1, 1000);
    expect(a.actingAt(1, 1000)).toBe(true);
    expect(a.actingAt(1, 5000)).toBe(true); // still running
    expect(a.actingAt(2, 1500)).toBe(false); // another tab
    expect(a.lastEnd(1)).toBe(Number.POSITIVE_INFINITY);
    end(1200);
    expect(a.actingAt(1, 999)).toBe(false); // before it began: the person's
    expect(a.actingAt(1, 1200)).toBe(true);
    expect(a.actingAt(1, 1201)).toBe(false);
    expect(a.lastEnd(1)).toBe(1200);
  });

  it("tells the person's navigations from the page's and monkbrowse's", () => {
    const nav = (transitionType: string, transitionQualifiers: string[] = []) => ({ transitionType, transitionQualifiers, timeStamp: 50_000 });
    expect(personNavigation(nav("typed", ["from_address_bar"]), false, undefined, 0)).toBe("navigated");
    expect(personNavigation(nav("auto_bookmark"), false, undefined, 0)).toBe("navigated");
    expect(personNavigation(nav("reload"), false, undefined, 0)).toBe("reloaded");
    expect(personNavigation(nav("link", ["forward_back"]), false, undefined, 0)).toBe("back_forward");
    // monkbrowse was acting: its own.
    expect(personNavigation(nav("typed"), true, undefined, 0)).toBeUndefined();
    // Redirects are the page's or the server's.
    expect(personNavigation(nav("link", ["client_redirect"]), false, 49_000, 0)).toBeUndefined();
    // A link or form: the person's only right after their own input, after monkbrowse's last action.
    expect(personNavigation(nav("link"), false, 49_000, 10_000)).toBe("navigated");
    expect(personNavigation(nav("form_submit"), false, 49_000, 10_000)).toBe("navigated");
    expect(personNavigation(nav("link"), false, undefined, 0)).toBeUndefined();
    expect(personNavigation(nav("link"), false, 50_000 - LINK_AFTER_INPUT_MS - 1, 0)).toBeUndefined();
    expect(personNavigation(nav("link"), false, 49_000, 49_500)).toBeUndefined();
  });
});
