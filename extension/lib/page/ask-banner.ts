// The hand-off notice (browser_ask_user, issue 29; issue 40): while the AI
// waits for the person, the shared tab shows a neutral notice at its top
// that says so and where to answer. It carries neither the AI's message nor
// the asking app, and has no button: the page can read and style anything
// it hosts (a closed shadow root hides it from the DOM, not from
// window.find and Selection.modify; a host made transparent still takes
// the clicks meant for what the page draws under it), so the message and
// Done/Decline are only in the extension's popup, which no page can script,
// frame or click (background/ask.ts, popup/asks.ts). A page can hide this
// notice or draw a look-alike; the toolbar badge and the popup stay true.

import { OWN_UI } from "./own-ui";

/** What the notice says: nothing the page must not read. */
export const NOTICE_TEXT = "monkbrowse: the AI is waiting for you. Open the monkbrowse button in the toolbar to read its request and answer there.";

const HOST_STYLE = [
  "all: initial",
  "position: fixed",
  "top: 0",
  "left: 0",
  "right: 0",
  "z-index: 2147483647",
  "display: block",
  // Clicks go through to the page: the notice answers nothing.
  "pointer-events: none",
]
  .map((d) => `${d} !important`)
  .join("; ");

const CSS = `
.bar { box-sizing: border-box; margin: 8px auto; max-width: 720px; padding: 10px 14px; border-radius: 10px;
  background: #1f2a44; color: #fff; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
  box-shadow: 0 6px 24px rgba(0,0,0,.35); }
`;

/** One notice per document. show() puts it up for an ask; hide() takes it down. */
export class AskBanner {
  private host: HTMLElement | null = null;
  private askId = "";
  private watch: MutationObserver | null = null;

  constructor(private readonly doc: Document) {}

  /** The ask shown now ("" when none). */
  shown(): string {
    return this.host ? this.askId : "";
  }

  show(askId: string): void {
    if (this.host && this.askId === askId) return;
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
    bar.setAttribute("role", "status");
    bar.textContent = NOTICE_TEXT;
    root.append(style, bar);
    this.host = host;
    this.askId = askId;
    this.attach();
    // A page that re-renders its whole document must not take the notice
    // down with it: put it back (a hostile page can still hide it: the
    // popup and the toolbar badge say the same).
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
}
