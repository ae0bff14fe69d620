// @vitest-environment happy-dom
// The snapshot's traversal limit (issue 30): a page whose snapshot is
// within the limit is built exactly as without it; a larger page is read
// only as far as the limit, in page order, with the same refs.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { RefRegistry } from "./refs";
import { buildSnapshot, type TraversalLimit } from "./snapshot";

const MIXED = `
  <header><nav aria-label="Main"><a href="/">Home</a> <a href="/docs">Docs</a></nav></header>
  <main>
    <h1>Guide</h1>
    <p>Some   text with <b>bold</b> and <a href="/x">a link</a>, then more text.</p>
    <ul>${Array.from({ length: 30 }, (_, i) => `<li>Item ${i} <button>Buy ${i}</button></li>`).join("")}</ul>
    <table><tr><th>Name</th><th>Price</th></tr><tr><td>Tea</td><td>3</td></tr></table>
    <form><label>Email <input type="email" value="a@b.c"></label><select><option>One</option><option selected>Two</option></select></form>
    <details><summary>More</summary><p>Hidden</p></details>
    <div style="display:none"><button>Invisible</button></div>
    <p>${"A long paragraph. ".repeat(40)}</p>
  </main>`;

function big(n: number): string {
  return `<main><h1>Big</h1><ul>${Array.from({ length: n }, (_, i) => `<li><a href="/p/${i}">Product ${i}</a> <span>${i} in stock</span> <button>Add ${i}</button></li>`).join("")}</ul></main>`;
}

let refs: RefRegistry;
beforeEach(() => {
  refs = new RefRegistry();
  document.body.innerHTML = "";
});

describe("the snapshot's traversal limit", () => {
  it("leaves a page within the limit exactly as it is, even at a limit of the snapshot's own length", () => {
    document.body.innerHTML = MIXED;
    const whole = buildSnapshot(document, new RefRegistry());
    expect(whole.length).toBeGreaterThan(500);
    const limit: TraversalLimit = { chars: whole.length, stopped: false };
    expect(buildSnapshot(document, new RefRegistry(), { limit })).toBe(whole);
    expect(limit.stopped).toBe(false);
  });

  it("reads a larger page only as far as the limit: a prefix of the whole snapshot, same refs, and says so", () => {
    document.body.innerHTML = big(3000);
    const whole = buildSnapshot(document, new RefRegistry()).split("\n");
    const limit: TraversalLimit = { chars: 5_000, stopped: false };
    const part = buildSnapshot(document, refs, { limit }).split("\n");
    expect(limit.stopped).toBe(true);
    expect(part.at(-1)).toMatch(/the page goes on: monkbrowse read it only this far/);
    // The last element read may have lost its children (its line then has no colon).
    const read = part.slice(0, -2);
    expect(read.length).toBeGreaterThan(50);
    expect(whole.slice(0, read.length)).toEqual(read);
    // Counted from below (indentation and /url lines are not counted): within 2×.
    expect(part.join("\n").length).toBeLessThan(5_000 * 2);
    expect(part.length).toBeLessThan(whole.length / 10);
  });

  it("does work in proportion to what it reads", () => {
    document.body.innerHTML = big(3000);
    const spy = vi.spyOn(window, "getComputedStyle");
    buildSnapshot(document, new RefRegistry());
    const full = spy.mock.calls.length;
    spy.mockClear();
    buildSnapshot(document, new RefRegistry(), { limit: { chars: 5_000, stopped: false } });
    const limited = spy.mock.calls.length;
    spy.mockRestore();
    expect(full).toBeGreaterThan(9000);
    expect(limited).toBeLessThan(full / 10);
  });
});
