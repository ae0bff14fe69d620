// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { isLinkMessage, LinkInbox, MAX_KEPT, postLinkTokens } from "./framelink";
import { RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";

/** A window with a parent, whose message events the test dispatches. */
function fakeWindow() {
  const target = new EventTarget();
  const parent = {} as Window;
  const win = Object.assign(target, { parent, frameElement: null }) as unknown as Window;
  const post = (data: unknown, source: unknown) => {
    const ev = new Event("message") as MessageEvent;
    Object.defineProperty(ev, "data", { value: data });
    Object.defineProperty(ev, "source", { value: source });
    target.dispatchEvent(ev);
  };
  return { win, parent, post };
}

describe("LinkInbox", () => {
  it("keeps only tokens its parent window posted", async () => {
    const { win, parent, post } = fakeWindow();
    const inbox = new LinkInbox(win, async () => undefined);
    post({ monkbrowseLink: "fromSibling" }, {});
    post({ monkbrowseLink: "fromItself" }, win);
    post({ monkbrowseLink: "ok" }, parent);
    post({ monkbrowseLink: "guess" }, parent);
    post({ other: 1 }, parent);
    expect(await inbox.take(["ok", "fromSibling", "fromItself", "notSent"])).toEqual(["ok"]);
    // Taken once: the next ask starts empty.
    expect(await inbox.take(["ok"])).toEqual([]);
  });

  it("waits for a token that has not arrived yet", async () => {
    const { win, parent, post } = fakeWindow();
    const inbox = new LinkInbox(win, () => new Promise(() => {}));
    const got = inbox.take(["late"]);
    // A page's guess posted meanwhile does not end the wait.
    post({ monkbrowseLink: "guess" }, parent);
    post({ monkbrowseLink: "late" }, parent);
    expect(await got).toEqual(["late"]);
  });

  it("keeps a bounded number of tokens", async () => {
    const { win, parent, post } = fakeWindow();
    const inbox = new LinkInbox(win, async () => undefined);
    for (let i = 0; i < 50; i++) post({ monkbrowseLink: `t${i}` }, parent);
    const all = Array.from({ length: 50 }, (_, i) => `t${i}`);
    // The latest MAX_KEPT.
    expect(await inbox.take(all)).toEqual(all.slice(50 - MAX_KEPT));
  });

  it("says inlined for a same-origin frame (its parent can read it)", () => {
    const { win } = fakeWindow();
    expect(new LinkInbox(win).inlined()).toBe(false);
    Object.assign(win, { frameElement: {} });
    expect(new LinkInbox(win).inlined()).toBe(true);
  });

  it("accepts only short string tokens", () => {
    expect(isLinkMessage({ monkbrowseLink: "x".repeat(65) })).toBe(false);
    expect(isLinkMessage({ monkbrowseLink: 3 })).toBe(false);
    expect(isLinkMessage("monkbrowseLink")).toBe(false);
  });
});

describe("postLinkTokens", () => {
  /** An iframe that behaves as a cross-origin one: no document, a window that records posts. */
  function crossFrame(posts: unknown[]): HTMLIFrameElement {
    const f = document.createElement("iframe");
    Object.defineProperty(f, "contentDocument", { value: null });
    Object.defineProperty(f, "contentWindow", { value: { postMessage: (m: unknown, o: string) => posts.push([m, o]) } });
    return f;
  }

  it("posts one fresh token into each cross-origin frame, the snapshot's (in shadow roots) and hidden ones, by ref", () => {
    document.body.innerHTML = "";
    const refs = new RefRegistry();
    const postsA: unknown[] = [];
    const postsB: unknown[] = [];
    const hidden = crossFrame(postsB);
    hidden.style.display = "none";
    document.body.appendChild(hidden);
    const host = document.createElement("div");
    document.body.appendChild(host);
    const inShadow = crossFrame(postsA);
    host.attachShadow({ mode: "open" }).appendChild(inShadow);
    let n = 0;
    const links = postLinkTokens(document, refs, [inShadow], () => `tok${++n}`);
    expect(links).toEqual({ [refs.peek(inShadow)!]: "tok1", [refs.peek(hidden)!]: "tok2" });
    expect(postsA).toEqual([[{ monkbrowseLink: "tok1" }, "*"]]);
    expect(postsB).toEqual([[{ monkbrowseLink: "tok2" }, "*"]]);
    // The snapshot lists the frame in the shadow root (not the hidden one, which has no line).
    const met: Element[] = [];
    buildSnapshot(document, refs, { crossOrigin: met });
    expect(met).toEqual([inShadow]);
    // Listed twice (seen and in the light DOM): one token.
    const again = postLinkTokens(document, refs, [hidden], () => `tok${++n}`);
    expect(Object.keys(again)).toEqual([refs.peek(hidden)!]);
  });
});
