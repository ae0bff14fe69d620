// The options page's "Sites' own tools" section (WebMCP, issue 43): every
// "Always on this site" the person chose, with Revoke. Self-contained: it
// reads storage and asks the service worker to revoke.

import { toBg } from "../../lib/messages";
import { KEY_SITE_GRANTS, normalizeGrants, siteName } from "../../lib/sitetools";
import { report } from "../../lib/diag";

const list = document.querySelector("#site-grant-list") as HTMLUListElement;
const none = document.querySelector("#site-grant-none") as HTMLParagraphElement;

async function render(): Promise<void> {
  const got = await chrome.storage.local.get(KEY_SITE_GRANTS);
  const grants = normalizeGrants(got[KEY_SITE_GRANTS]).sort((a, b) => a.origin.localeCompare(b.origin) || a.tool.localeCompare(b.tool));
  none.hidden = grants.length > 0;
  list.replaceChildren(
    ...grants.map((g) => {
      const li = document.createElement("li");
      li.dataset.origin = g.origin;
      li.dataset.tool = g.tool;
      const text = document.createElement("span");
      text.textContent = `${g.app} may always use ${g.tool} on ${siteName(g.origin)} (since ${new Date(g.at).toLocaleString()}) `;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "revoke";
      b.textContent = "Revoke";
      b.addEventListener("click", () => {
        b.disabled = true;
        toBg({ to: "bg", kind: "site-tool-revoke", origin: g.origin, app: g.app, tool: g.tool }).catch((e: unknown) => report("options: revoking a site tool", e));
      });
      li.append(text, b);
      return li;
    }),
  );
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[KEY_SITE_GRANTS]) void render().catch((e: unknown) => report("options: site tools", e));
});
void render().catch((e: unknown) => report("options: site tools", e));
