// A site's own tool wants to run (WebMCP, issue 43): the popup is the only
// place the question and its answers are shown ("<app> wants to use <tool>
// on <site>: Allow once / Always on this site / Deny"), since a page can
// read and click anything it hosts; the tab shows the hand-off's neutral
// notice and the toolbar its "?". Read from chrome.storage.session
// (background/sitetools.ts writes it); the answer goes to the service
// worker, which takes "site-tool-answer" from extension pages only.

import { toBg } from "../../lib/messages";
import { KEY_SITE_ASKS, normalizeSiteAsks, siteName, type Answer } from "../../lib/sitetools";
import { KEY_SHARES, normalizeShares } from "../../lib/storage";

import { answerRow } from "./answers";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;

const BUTTONS: [string, string, Answer][] = [
  ["allow-once", "Allow once", "once"],
  ["allow-always", "Always on this site", "always"],
  ["deny", "Deny", "deny"],
];

export function installSiteAsks(showError: (e: unknown) => void): void {
  const box = $<HTMLElement>("#site-asks");
  const list = $<HTMLOListElement>("#site-ask-list");

  async function render(): Promise<void> {
    const [session, local] = await Promise.all([chrome.storage.session.get(KEY_SITE_ASKS), chrome.storage.local.get(KEY_SHARES)]);
    const shares = normalizeShares(local[KEY_SHARES]);
    const asks = normalizeSiteAsks(session[KEY_SITE_ASKS]).sort((a, b) => a.created - b.created);
    list.replaceChildren(
      ...asks.map((a) => {
        const li = document.createElement("li");
        li.dataset.id = a.id;
        const who = document.createElement("span");
        who.className = "who";
        const slot = shares[String(a.tabId)];
        // The tool's name is the page's word: set apart in a code box, cut,
        // so it cannot read as part of monkbrowse's sentence.
        const tool = document.createElement("code");
        tool.className = "tool";
        tool.textContent = [...a.tool].length > 60 ? `${[...a.tool].slice(0, 59).join("")}…` : a.tool;
        tool.title = "The tool's name, as the site gives it";
        who.append(`${a.app} wants to use `, tool, ` on ${siteName(a.origin)}${slot !== undefined ? ` (tab ${slot})` : ""}`);
        const args = document.createElement("span");
        args.className = "args";
        args.textContent = `With: ${a.args}`;
        const note = document.createElement("span");
        note.className = "note";
        note.textContent = a.consequential
          ? "The site says this tool has consequences (an order, a payment, a message): you are asked every time unless you choose Always."
          : "The site does not mark this tool read-only: it may change something.";
        const row = answerRow(BUTTONS, (answer) => toBg({ to: "bg", kind: "site-tool-answer", id: a.id, answer }), showError);
        li.append(who, args, note, row);
        return li;
      }),
    );
    box.hidden = asks.length === 0;
  }

  chrome.storage.onChanged.addListener((changes, area) => {
    if ((area === "session" && changes[KEY_SITE_ASKS]) || (area === "local" && changes[KEY_SHARES])) void render().catch(showError);
  });
  void render().catch(showError);
}
