// The network log behind browser_network_requests: what chrome.webRequest
// reports for shared tabs, per tab, since the tab's last top-level
// navigation, bounded. Pure logic (no Chrome APIs) so it is unit-tested; the
// service worker feeds it events and persists its state in
// chrome.storage.session, because the worker is suspended when idle.
//
// It also remembers, for a few minutes, which URLs shared tabs requested, so
// downloads (chrome.downloads items carry no tab id) can be matched to the
// shared tab that started them (lib/downloads.ts).

import type { NetworkRequest } from "./protocol.gen";

/** Requests kept per tab; older ones are dropped (and counted). */
export const MAX_PER_TAB = 300;
/** URLs remembered for matching downloads. */
export const MAX_RECENT = 1000;
/** How long a request URL can explain a download. */
export const RECENT_MS = 5 * 60_000;

export interface Entry extends NetworkRequest {
  requestId: string;
  frameId: number;
}

export interface TabLog {
  seq: number;
  dropped: number;
  url: string;
  entries: Entry[];
}

export interface RecentRequest {
  url: string;
  tabId: number;
  time: number;
}

/**
 * A request of a tab that is not shared (or of no tab: the browser's own,
 * "Save link as…"), kept only to tell that a download may not be a shared
 * tab's: its URL as a hash (urlKey), never the URL itself.
 */
export interface OtherRequest {
  key: string;
  time: number;
}

export interface NetState {
  tabs: Record<string, TabLog>;
  recent: RecentRequest[];
  /** Absent in a state saved before it existed. */
  others?: OtherRequest[];
}

/** A URL's key for OtherRequest: FNV-1a (53 bits), hex. Not reversible by reading the log. */
export function urlKey(url: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x85ebca6b) >>> 0;
  }
  return `${h1.toString(16)}${(h2 & 0x1fffff).toString(16)}`;
}

export interface BeforeRequest {
  requestId: string;
  tabId: number;
  frameId: number;
  method: string;
  url: string;
  type: string;
  timeStamp: number;
}

export interface ResponseInfo {
  requestId: string;
  tabId: number;
  statusCode?: number;
  statusLine?: string;
  fromCache?: boolean;
  responseHeaders?: { name: string; value?: string }[];
  timeStamp: number;
}

export interface ErrorInfo {
  requestId: string;
  tabId: number;
  error: string;
  timeStamp: number;
}

export function emptyState(): NetState {
  return { tabs: {}, recent: [], others: [] };
}

function header(h: ResponseInfo["responseHeaders"], name: string): string | undefined {
  const lower = name.toLowerCase();
  return h?.find((x) => x.name.toLowerCase() === lower)?.value;
}

/** The reason phrase of "HTTP/1.1 404 Not Found". */
export function statusText(line: string | undefined): string {
  const m = /^\S+\s+\d{3}\s*(.*)$/.exec(line ?? "");
  return m?.[1]?.trim() ?? "";
}

export class NetLog {
  constructor(public state: NetState = emptyState()) {}

  private tab(tabId: number): TabLog {
    const k = String(tabId);
    let t = this.state.tabs[k];
    if (!t) {
      t = { seq: 0, dropped: 0, url: "", entries: [] };
      this.state.tabs[k] = t;
    }
    return t;
  }

  private find(tabId: number, requestId: string): Entry | undefined {
    const t = this.state.tabs[String(tabId)];
    if (!t) return undefined;
    for (let i = t.entries.length - 1; i >= 0; i--) if (t.entries[i]!.requestId === requestId) return t.entries[i];
    return undefined;
  }

  /** A request starts (only called for shared tabs). Redirects reuse the requestId: the entry follows. */
  begin(d: BeforeRequest): void {
    const t = this.tab(d.tabId);
    const existing = this.find(d.tabId, d.requestId);
    if (existing && existing.state === "pending") {
      // A redirect: the same request continues at a new URL.
      existing.url = d.url;
    } else {
      t.seq++;
      t.entries.push({
        id: t.seq,
        requestId: d.requestId,
        frameId: d.frameId,
        method: d.method,
        url: d.url,
        type: d.type,
        start: Math.round(d.timeStamp),
        state: "pending",
      });
      if (t.entries.length > MAX_PER_TAB) {
        const cut = t.entries.length - MAX_PER_TAB;
        t.entries.splice(0, cut);
        t.dropped += cut;
      }
    }
    this.state.recent.push({ url: d.url, tabId: d.tabId, time: d.timeStamp });
    if (this.state.recent.length > MAX_RECENT) this.state.recent.splice(0, this.state.recent.length - MAX_RECENT);
  }

  response(d: ResponseInfo): void {
    const e = this.find(d.tabId, d.requestId);
    if (!e) return;
    if (d.statusCode) e.status = d.statusCode;
    const st = statusText(d.statusLine);
    if (st) e.statusText = st;
    if (d.fromCache) e.fromCache = true;
    const len = header(d.responseHeaders, "content-length");
    if (len !== undefined && /^\d+$/.test(len.trim())) e.size = Number(len.trim());
    const ct = header(d.responseHeaders, "content-type");
    if (ct) e.mimeType = ct.split(";")[0]!.trim();
  }

  complete(d: ResponseInfo): void {
    this.response(d);
    const e = this.find(d.tabId, d.requestId);
    if (!e) return;
    e.state = "done";
    e.duration = Math.max(0, Math.round((d.timeStamp - e.start) * 10) / 10);
  }

  fail(d: ErrorInfo): void {
    const e = this.find(d.tabId, d.requestId);
    if (!e) return;
    e.state = "failed";
    e.error = d.error;
    e.duration = Math.max(0, Math.round((d.timeStamp - e.start) * 10) / 10);
  }

  /**
   * The tab committed a new document (not same-document): requests before
   * the main-frame request that loaded it belong to the old page and go.
   */
  committed(tabId: number, url: string): void {
    const t = this.state.tabs[String(tabId)];
    if (!t) return;
    let main = -1;
    for (let i = t.entries.length - 1; i >= 0; i--) {
      const e = t.entries[i]!;
      if (e.type === "main_frame" && sameDoc(e.url, url)) {
        main = i;
        break;
      }
    }
    // No main-frame request for it (back/forward cache, a page Chrome
    // served itself): nothing of the old page belongs to the new one.
    t.entries.splice(0, main >= 0 ? main : t.entries.length);
    t.dropped = 0;
    t.url = url;
  }

  /** A request of a tab that is not shared, or of no tab (see OtherRequest). */
  other(url: string, time: number): void {
    const list = (this.state.others ??= []);
    list.push({ key: urlKey(url), time });
    if (list.length > MAX_RECENT) list.splice(0, list.length - MAX_RECENT);
  }

  forget(tabId: number): void {
    delete this.state.tabs[String(tabId)];
  }

  /** Drops remembered URLs older than RECENT_MS. */
  prune(now: number): void {
    const keep = this.state.recent.filter((r) => now - r.time <= RECENT_MS);
    if (keep.length !== this.state.recent.length) this.state.recent = keep;
    const others = (this.state.others ?? []).filter((r) => now - r.time <= RECENT_MS);
    if (others.length !== (this.state.others ?? []).length) this.state.others = others;
  }

  list(tabId: number, opts: { filter?: string; since?: number }): { url: string; requests: Entry[]; total: number; dropped: number } {
    const t = this.state.tabs[String(tabId)];
    if (!t) return { url: "", requests: [], total: 0, dropped: 0 };
    const f = (opts.filter ?? "").toLowerCase();
    const since = opts.since ?? 0;
    const requests = t.entries.filter((e) => e.id > since && (f === "" || e.url.toLowerCase().includes(f)));
    return { url: t.url, requests, total: t.entries.length, dropped: t.dropped };
  }
}

function sameDoc(a: string, b: string): boolean {
  const strip = (u: string) => u.split("#")[0];
  return strip(a) === strip(b);
}

/** The wire form of an entry (without the internal ids). */
export function toWire(e: Entry): NetworkRequest {
  const { requestId: _r, frameId: _f, ...rest } = e;
  return rest;
}
