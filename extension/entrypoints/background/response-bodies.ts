// BrowserPort.network with response bodies: the requests seen by
// chrome.webRequest, each given the body the debugger captured for it.

import type { BrowserPort } from "../../lib/executor";
import { bodiesOf, debuggerEnabled } from "./debugger";
import { networkRequests } from "./network";

export const BODIES_NEED_DEBUGGER =
  "Response bodies need the debugger mode, which is off: the person can switch it on in the monkbrowse options (For this Chrome profile).";
export const BODIES_ONLY_ATTACHED =
  "Requests without a body were made while monkbrowse's debugger was not attached to the tab (it attaches only while working there) or have no body; repeat the action that makes them, then ask again.";

export const network: BrowserPort["network"] = async (tabId, opts) => {
  const r = await networkRequests(tabId, opts);
  if (!opts.includeBodies) return r;
  if (!(await debuggerEnabled())) return { ...r, bodiesNote: BODIES_NEED_DEBUGGER };
  // Match bodies (newest first) to requests of the same URL, newest first.
  const pool = [...bodiesOf(tabId)];
  let found = 0;
  for (let i = r.requests.length - 1; i >= 0; i--) {
    const q = r.requests[i]!;
    const j = pool.map((b) => b.url).lastIndexOf(q.url);
    if (j < 0) continue;
    const b = pool.splice(j, 1)[0]!;
    q.body = b.body;
    if (b.base64) q.bodyBase64 = true;
    if (b.truncated) q.bodyTruncated = true;
    found++;
  }
  return found === r.requests.length ? r : { ...r, bodiesNote: BODIES_ONLY_ATTACHED };
};
