// The hand-off banner (browser_ask_user, issue 29): the AI's message to the
// person at the top of the shared tab, with Done and Decline. Drawn by the
// content script, in its isolated world, inside a CLOSED shadow root: the
// page's scripts cannot read the message or reach the buttons (the host
// element's shadowRoot is null to them, and their patched DOM prototypes
// are not this world's). Only the person's own clicks count: the buttons
// answer for trusted events only (isTrusted), so a page's click() or
// dispatchEvent does nothing; the service worker also ignores the answer
// while monkbrowse itself is sending debugger-mode input into the tab
// (background/ask.ts). A page can still cover or remove the banner, so the
// popup shows the same request with the same buttons.

import { OWN_UI } from "./own-ui";

export type AskAnswer = "done" | "declined";

export interface BannerAsk {
  askId: string;
  message: string;
  /** The asking AI app as the person knows it. */
  app: string;
}

const HOST_STYLE = [
  "all: initial",
  "position: fixed",
  "top: 0",
  "left: 0",
  "right: 0",
  "z-index: 2147483647",
  "display: block",
  "pointer-events: auto",
]
  .map((d) => `${d} !important`)
  .join("; ");

const CSS = `
.bar { box-sizing: border-box; margin: 8px auto; max-width: 720px; padding: 12px 14px; border-radius: 10px;
  background: #1f2a44; color: #fff; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
  box-shadow: 0 6px 24px rgba(0,0,0,.35); display: flex; gap: 12px; align-items: center; }
.text { flex: 1; min-width: 0; }
.who { font-weight: 600; display: block; margin-bottom: 2px; }
.msg { white-space: pre-wrap; overflow-wrap: anywhere; }
.note { display: block; margin-top: 4px; font-size: 12px; opacity: .8; }
button { font: inherit; font-weight: 600; border: 0; border-radius: 6px; padding: 7px 14px; cursor: pointer; }
.done { background: #4caf50; color: #0b1f0c; }
.decline { background: #e0e0e0; color: #222; }
button:focus-visible { outline: 3px solid #ffd54f; outline-offset: 2px; }
`;

/**
 * One banner per document. show() replaces what is shown; hide() takes it
 * down. The answer callback gets the person's click only.
 */
export class AskBanner {
  private host: HTMLElement | null = null;
  private askId = "";
  private watch: MutationObserver | null = null;

  constructor(
    private readonly doc: Document,
    private readonly onAnswer: (askId: string, answer: AskAnswer) => void,
  ) {}

  /** The ask shown now ("" when none). */
  shown(): string {
    return this.host ? this.askId : "";
  }

  show(a: BannerAsk): void {
    this.hide();
    const doc = this.doc;
    const host = doc.createElement("monkbrowse-ask");
    OWN_UI.add(host);
    host.setAttribute("style", HOST_STYLE);
    const root = host.attachShadow({ mode: "closed" });
    const style = doc.createElement("style");
    style.textContent = CSS;
    const bar = doc.createElement("div");
    bar.className = "bar";
    bar.setAttribute("role", "alertdialog");
    bar.setAttribute("aria-label", `${a.app} asks you`);
    const text = doc.createElement("div");
    text.className = "text";
    const who = doc.createElement("span");
    who.className = "who";
    who.textContent = `${a.app} asks you (monkbrowse):`;
    const msg = doc.createElement("span");
    msg.className = "msg";
    msg.textContent = a.message;
    const note = doc.createElement("span");
    note.className = "note";
    note.textContent = "The AI waits meanwhile. Press Done when you have finished: it then reads the page again, never your passwords.";
    text.append(who, msg, note);
    const done = this.button("done", "Done", a.askId, "done");
    const decline = this.button("decline", "Decline", a.askId, "declined");
    bar.append(text, done, decline);
    root.append(style, bar);
    this.host = host;
    this.askId = a.askId;
    this.attach();
    // A page that re-renders its whole document must not take the banner
    // down with it: put it back (a hostile page can still fight it; the
    // popup has the same buttons).
    this.watch = new MutationObserver(() => {
      if (this.host && !this.host.isConnected) this.attach();
    });
    this.watch.observe(doc.documentElement ?? doc, { childList: true, subtree: false });
  }

  hide(askId?: string): void {
    if (askId !== undefined && askId !== this.askId) return;
    this.watch?.disconnect();
    this.watch = null;
    this.host?.remove();
    this.host = null;
    this.askId = "";
  }

  private attach(): void {
    if (!this.host) return;
    (this.doc.documentElement ?? this.doc.body)?.append(this.host);
  }

  private button(cls: string, label: string, askId: string, answer: AskAnswer): HTMLButtonElement {
    const b = this.doc.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = label;
    b.addEventListener("click", (ev) => {
      // Only the person's own input: a page script's click() or
      // dispatchEvent is not trusted.
      if (!ev.isTrusted) return;
      if (askId !== this.askId) return;
      this.onAnswer(askId, answer);
    });
    return b;
  }
}
