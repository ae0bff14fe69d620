// Pages Chrome does not let extensions script, and the message that says so.

import { KEPT_SCHEMES, LOCAL_HOST_RE, SCHEME_URL_RE } from "./protocol.gen";

const BLOCKED_SCHEMES = ["chrome:", "chrome-untrusted:", "devtools:", "edge:", "view-source:", "chrome-search:"];
const STORE_PREFIXES = ["https://chrome.google.com/webstore", "https://chromewebstore.google.com"];

/**
 * restrictedReason returns why a URL cannot be automated, or undefined when
 * it can. Extension pages are refused too, this extension's own included:
 * an AI that could drive the popup could share tabs by itself.
 */
export function restrictedReason(url: string | undefined, ownExtensionId?: string): string | undefined {
  if (!url) return undefined; // not known yet (a loading tab): let the operation try
  const lower = url.toLowerCase();
  const what = `this tab shows ${url}, a page Chrome does not let extensions automate`;
  for (const s of BLOCKED_SCHEMES) if (lower.startsWith(s)) return `${what}; navigate it to a normal web page first`;
  if (lower.startsWith("chrome-extension:")) {
    const own = ownExtensionId !== undefined && lower.startsWith(`chrome-extension://${ownExtensionId.toLowerCase()}/`);
    return `${what} (${own ? "monkbrowse's own page: the AI may not change what is shared" : "an extension's page"}); navigate it to a normal web page first`;
  }
  for (const p of STORE_PREFIXES) {
    if (lower === p || lower.startsWith(p + "/") || lower.startsWith(p + "?")) {
      return `${what} (the Chrome Web Store); navigate it to another page first`;
    }
  }
  if (lower.startsWith("about:") && lower !== "about:blank" && !lower.startsWith("about:blank#") && !lower.startsWith("about:srcdoc")) {
    return `${what}; navigate it to a normal web page first`;
  }
  return undefined;
}

/**
 * normalizeUrl completes what a person (or an AI) would type in the address
 * bar: "example.com" → https://example.com, "localhost:3000" →
 * http://localhost:3000. The rules are protocol/urls.go's, generated.
 */
export function normalizeUrl(url: string): string {
  const t = url.trim();
  const lower = t.toLowerCase();
  if (KEPT_SCHEMES.some((s) => lower.startsWith(s)) || SCHEME_URL_RE.test(t)) return t;
  return (LOCAL_HOST_RE.test(t) ? "http://" : "https://") + t;
}

/** Only web pages and about:blank may be opened by browser_navigate / browser_new_tab. */
export function navigableReason(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a valid URL; give a full URL such as https://example.com/`;
  }
  if (u.protocol === "http:" || u.protocol === "https:" || u.protocol === "file:" || u.protocol === "data:") {
    return restrictedReason(url);
  }
  if (url === "about:blank") return undefined;
  return `cannot open ${url}: only http(s), file and data URLs (or about:blank) can be opened for the AI`;
}
