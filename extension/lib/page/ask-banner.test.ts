import { afterEach, describe, expect, it } from "vitest";
import { AskBanner, type AskAnswer } from "./ask-banner";
import { RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";
import { getText } from "./text";

function trustedClick(el: Element): void {
  // happy-dom lets a test mark an event trusted; a page's script cannot in a browser.
  const ev = new MouseEvent("click", { bubbles: true, composed: true });
  Object.defineProperty(ev, "isTrusted", { value: true });
  el.dispatchEvent(ev);
}

const banners: AskBanner[] = [];

describe("the hand-off banner", () => {
  afterEach(() => {
    banners.splice(0).forEach((b) => b.hide());
    document.documentElement.querySelectorAll("monkbrowse-ask").forEach((e) => e.remove());
    document.body.innerHTML = "";
  });

  function setup() {
    document.body.innerHTML = `<h1>Sign in</h1><button id="go">Go</button>`;
    const answers: [string, AskAnswer][] = [];
    const b = new AskBanner(document, (id, a) => answers.push([id, a]));
    banners.push(b);
    // The test keeps the root the page cannot get (closed mode).
    let root: ShadowRoot | undefined;
    const attach = HTMLElement.prototype.attachShadow;
    HTMLElement.prototype.attachShadow = function (init) {
      root = attach.call(this, init);
      return root;
    };
    try {
      b.show({ askId: "a1", message: "Please sign in, then press Done.", app: "Claude Code" });
    } finally {
      HTMLElement.prototype.attachShadow = attach;
    }
    return { b, answers, root: root!, host: document.querySelector("monkbrowse-ask") as HTMLElement };
  }

  it("is drawn in a closed shadow root the page cannot read, and not in the AI's snapshot or text", () => {
    const { host, root } = setup();
    expect(host).not.toBeNull();
    expect(host.shadowRoot).toBeNull();
    expect(root.textContent).toContain("Please sign in, then press Done.");
    expect(document.documentElement.textContent).not.toContain("Please sign in");
    const snap = buildSnapshot(document, new RefRegistry(), { shadowRoot: (el) => (el === host ? root : null) });
    expect(snap).toContain('button "Go"');
    expect(snap).not.toContain("Please sign in");
    expect(snap).not.toContain("Done");
    expect(getText(new RefRegistry(), document, {}).text).not.toContain("Please sign in");
  });

  it("answers for the person's trusted click only, once per ask", () => {
    const { answers, root } = setup();
    const done = root.querySelector("button.done") as HTMLButtonElement;
    const decline = root.querySelector("button.decline") as HTMLButtonElement;
    done.click(); // what a page's script could do, had it the button
    done.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(answers).toEqual([]);
    trustedClick(decline);
    expect(answers).toEqual([["a1", "declined"]]);
  });

  it("goes when hidden, and comes back when the page re-renders its document", async () => {
    const { b, host } = setup();
    host.remove();
    await new Promise((r) => setTimeout(r, 0)); // the MutationObserver's turn
    expect(document.querySelector("monkbrowse-ask")).toBe(host);
    b.hide("other");
    expect(b.shown()).toBe("a1");
    b.hide("a1");
    expect(document.querySelector("monkbrowse-ask")).toBeNull();
    expect(b.shown()).toBe("");
  });
});
