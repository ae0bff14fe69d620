// @vitest-environment happy-dom
// The content script's side of the debugger mode's reading of Chromium's
// tree: the candidates it stashes (components the hooks never saw), and the
// snapshot with Chromium's additions merged under its own reading.
import { afterEach, describe, expect, it } from "vitest";
import { AX_STASH } from "../axtree";
import { stashCandidates, withChromiumAx } from "./axhints";
import type { InternalsInfo, InternalsReader } from "./internals";
import { RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";

class MbSwitch extends HTMLElement {}
class MbList extends HTMLElement {}
class MbItem extends HTMLElement {}
customElements.define("mb-switch", MbSwitch);
customElements.define("mb-list", MbList);
customElements.define("mb-item", MbItem);

/** The hooks' reader of a document they reached too late (late: true) or in time, knowing `known`. */
function hooks(late: boolean, known = new Map<Element, InternalsInfo>()): InternalsReader {
  return { read: (el) => known.get(el) ?? null, late: () => late };
}

const openRoot = (el: Element) => (el as HTMLElement).shadowRoot ?? null;

function page(): void {
  document.body.innerHTML =
    '<h1>Settings</h1><mb-switch id="dark"><span>Dark</span></mb-switch>' +
    '<mb-list id="fruit"><mb-item>Apple</mb-item><mb-item id="pear">Pear</mb-item></mb-list><not-defined-yet>x</not-defined-yet>';
}

afterEach(() => {
  document.body.innerHTML = "";
  delete (globalThis as Record<string, unknown>)[AX_STASH];
});

describe("stashCandidates", () => {
  it("stashes the defined components of a late document, in page order, through shadow roots", () => {
    page();
    const host = document.createElement("mb-list");
    host.attachShadow({ mode: "open" }).innerHTML = "<mb-item>Inner</mb-item>";
    document.body.append(host);
    const c = stashCandidates(document, hooks(true), openRoot);
    expect(c.count).toBe(6);
    expect(c.truncated).toBe(false);
    const s = (globalThis as unknown as Record<string, { stamp: string; elements: Element[] }>)[AX_STASH]!;
    expect(s.stamp).toBe(c.stamp);
    expect(s.elements.map((e) => e.textContent)).toEqual(["Dark", "ApplePear", "Apple", "Pear", "", "Inner"]);
  });

  it("stashes nothing where the hooks were in time or know the element", () => {
    page();
    expect(stashCandidates(document, hooks(false), openRoot).count).toBe(0);
    const known = new Map<Element, InternalsInfo>([[document.getElementById("dark")!, { role: "switch" }]]);
    expect(stashCandidates(document, hooks(true, known), openRoot).count).toBe(3);
  });

  it("stops at its budget and then covers no document", () => {
    page();
    const c = stashCandidates(document, hooks(true), openRoot, 2);
    expect(c).toMatchObject({ count: 2, truncated: true });
    const r = withChromiumAx(hooks(true), { stamp: c.stamp, hints: [{ role: "switch" }, { role: "listbox" }] });
    expect(r.late(document)).toBe(true);
    expect(r.read(document.getElementById("dark")!)).toEqual({ role: "switch" });
  });
});

describe("the snapshot with Chromium's additions", () => {
  const hints = [{ role: "switch", label: "Dark mode", checked: "true" }, { role: "listbox", label: "Fruit" }, { role: "option" }, { role: "option", selected: "true" }];

  it("shows Chromium's roles, names and states with refs, and no longer says roles are missing", () => {
    page();
    const before = buildSnapshot(document, new RefRegistry(), { internals: hooks(true) });
    expect(before).toContain("set through ElementInternals are not shown");
    expect(before).not.toContain("switch");
    const c = stashCandidates(document, hooks(true), openRoot);
    const reader = withChromiumAx(hooks(true), { stamp: c.stamp, hints });
    const snap = buildSnapshot(document, new RefRegistry(), { internals: reader });
    expect(snap).toMatch(/- switch "Dark mode" \[checked\] \[ref=e\d+\]/);
    expect(snap).toMatch(/- listbox "Fruit" \[ref=e\d+\]:\n {2}- option "Apple" \[ref=e\d+\]\n {2}- option "Pear" \[selected\] \[ref=e\d+\]/);
    expect(snap).not.toContain("set through ElementInternals are not shown");
    // The stash is let go once used.
    expect((globalThis as Record<string, unknown>)[AX_STASH]).toBeUndefined();
  });

  it("keeps the author's attributes and the hooks' reading over Chromium's", () => {
    page();
    document.getElementById("dark")!.setAttribute("role", "checkbox");
    document.getElementById("dark")!.setAttribute("aria-checked", "false");
    const c = stashCandidates(document, hooks(true), openRoot);
    const snap = buildSnapshot(document, new RefRegistry(), { internals: withChromiumAx(hooks(true), { stamp: c.stamp, hints }) });
    expect(snap).toMatch(/- checkbox "Dark mode" \[ref=e\d+\]/);
    expect(snap).not.toContain("switch");
  });

  it("ignores hints for another stash, or of the wrong length, or of the wrong shape", () => {
    page();
    const c = stashCandidates(document, hooks(true), openRoot);
    const base = hooks(true);
    expect(withChromiumAx(base, { stamp: "other", hints })).toBe(base);
    expect(withChromiumAx(base, { stamp: c.stamp, hints: hints.slice(1) })).toBe(base);
    expect(withChromiumAx(base, undefined)).toBe(base);
    const r = withChromiumAx(base, { stamp: c.stamp, hints: [{ role: 7, label: ["x"], evil: "y" }, null, "option", { role: "option" }] });
    expect(r.read(document.getElementById("dark")!)).toBeNull();
    expect(r.read(document.getElementById("pear")!)).toEqual({ role: "option" });
  });
});
