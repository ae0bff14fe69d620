import { afterEach, describe, expect, it } from "vitest";
import { AskBanner, NOTICE_TEXT } from "./ask-banner";
import { RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";
import { getText } from "./text";

const banners: AskBanner[] = [];

describe("the hand-off banner", () => {
  afterEach(() => {
    banners.splice(0).forEach((b) => b.hide());
    document.documentElement.querySelectorAll("monkbrowse-ask").forEach((e) => e.remove());
    document.body.innerHTML = "";
  });

  function setup() {
    document.body.innerHTML = `<h1>Sign in</h1><button id="go">Go</button>`;
    const b = new AskBanner(document);
    banners.push(b);
    // The test keeps the root the page cannot get (closed mode).
    let root: ShadowRoot | undefined;
    const attach = HTMLElement.prototype.attachShadow;
    HTMLElement.prototype.attachShadow = function (init) {
      root = attach.call(this, init);
      return root;
    };
    try {
      b.show("a1");
    } finally {
      HTMLElement.prototype.attachShadow = attach;
    }
    return { b, root: root!, host: document.querySelector("monkbrowse-ask") as HTMLElement };
  }

  it("carries no message, no app and no button: only where to answer, out of the AI's snapshot and text", () => {
    const { host, root } = setup();
    expect(host).not.toBeNull();
    expect(host.shadowRoot).toBeNull();
    expect(root.textContent).toContain(NOTICE_TEXT);
    expect(root.querySelector("button")).toBeNull();
    // The notice takes no clicks: what the page draws under it gets them.
    expect(host.getAttribute("style")).toContain("pointer-events: none !important");
    const snap = buildSnapshot(document, new RefRegistry(), { shadowRoot: (el) => (el === host ? root : null) });
    expect(snap).toContain('button "Go"');
    expect(snap).not.toContain("waiting for you");
    expect(getText(new RefRegistry(), document, {}).text).not.toContain("waiting for you");
  });

  it("goes when hidden, and comes back when the page re-renders its document", async () => {
    const { b, host } = setup();
    // An observer made after the banner's is told after it, in the same
    // delivery: once it hears of the removal, the banner has had its turn.
    const heard = new Promise<void>((r) => {
      const mo = new MutationObserver(() => {
        mo.disconnect();
        r();
      });
      mo.observe(document.documentElement, { childList: true });
    });
    host.remove();
    await heard;
    expect(document.querySelector("monkbrowse-ask")).toBe(host);
    b.hide("other");
    expect(b.shown()).toBe("a1");
    b.hide("a1");
    expect(document.querySelector("monkbrowse-ask")).toBeNull();
    expect(b.shown()).toBe("");
  });
});
