// The AI's requests to the person (browser_ask_user, issues 29 and 40):
// the only place their message and Done/Decline are shown. The tab shows a
// neutral notice only, since a page can read and cover anything it hosts;
// no page can script, frame or click this popup. Read from
// chrome.storage.session (background/ask.ts writes it); the answer goes to
// the service worker, which takes "ask-answer" from extension pages only.

import { KEY_ASKS, normalizeAsks, pendingAsks } from "../../lib/ask";
import { toBg } from "../../lib/messages";
import { KEY_SHARES, normalizeShares } from "../../lib/storage";

import { answerRow } from "./answers";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;

export function installAsks(showError: (e: unknown) => void): void {
  const box = $<HTMLElement>("#asks");
  const list = $<HTMLOListElement>("#ask-list");

  async function render(): Promise<void> {
    const [session, local] = await Promise.all([chrome.storage.session.get(KEY_ASKS), chrome.storage.local.get(KEY_SHARES)]);
    const shares = normalizeShares(local[KEY_SHARES]);
    const asks = pendingAsks(normalizeAsks(session[KEY_ASKS]));
    list.replaceChildren(
      ...asks.map((a) => {
        const li = document.createElement("li");
        li.dataset.askId = a.askId;
        const who = document.createElement("span");
        who.className = "who";
        const slot = shares[String(a.tabId)];
        who.textContent = `${a.app} asks you${slot !== undefined ? ` (tab ${slot})` : ""}:`;
        const msg = document.createElement("span");
        msg.className = "msg";
        msg.textContent = a.message;
        const row = answerRow(
          [
            ["done", "Done", "done"],
            ["decline", "Decline", "declined"],
          ] as const,
          (answer) => toBg({ to: "bg", kind: "ask-answer", askId: a.askId, answer }),
          showError,
        );
        li.append(who, msg, row);
        return li;
      }),
    );
    box.hidden = asks.length === 0;
  }

  chrome.storage.onChanged.addListener((changes, area) => {
    if ((area === "session" && changes[KEY_ASKS]) || (area === "local" && changes[KEY_SHARES])) void render().catch(showError);
  });
  void render().catch(showError);
}
