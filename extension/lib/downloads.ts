// Matching downloads to shared tabs. chrome.downloads items carry no tab id,
// so a download is attributed to a shared tab when that tab requested the
// download's URL (or its final URL after redirects) shortly before the
// download started. Downloads nothing matches — those of tabs that are not
// shared, of the person's own typing in the address bar, of blob: URLs —
// are never listed. Nor are ambiguous ones: when a tab that is not shared
// (or the browser itself) also requested the URL in the same time window, the
// download may be the person's, and a shared page that requests a guessed URL
// must not learn where the person's file went (issue 25).

import type { DownloadInfo } from "./protocol.gen";
import { urlKey, type OtherRequest, type RecentRequest } from "./netlog";

/** A request may start at most this long before its download is created. */
export const MATCH_WINDOW_MS = 60_000;

export interface DownloadItemLike {
  id: number;
  url: string;
  finalUrl?: string;
  filename: string;
  mime?: string;
  bytesReceived: number;
  totalBytes: number;
  state: string;
  error?: string;
  startTime: string;
  endTime?: string;
}

/** What a known-tab record holds for a download found ambiguous (it stays so). */
export const AMBIGUOUS_TAB = -1;

/** Whether a request at time t can explain a download that started at start. */
function inWindow(t: number, start: number): boolean {
  return !Number.isFinite(start) || (t <= start + 5_000 && start - t <= MATCH_WINDOW_MS);
}

/**
 * The shared tab that started the download; "ambiguous" when a tab that is
 * not shared requested its URL in the same window too; undefined when no
 * shared tab did. known: the answers given before (by download id).
 */
export function matchTab(
  item: DownloadItemLike,
  recent: RecentRequest[],
  known: Record<string, number>,
  others: OtherRequest[] = [],
): number | "ambiguous" | undefined {
  const k = known[String(item.id)];
  if (k === AMBIGUOUS_TAB) return "ambiguous";
  if (k !== undefined) return k;
  const start = Date.parse(item.startTime);
  const urls = new Set([item.url, item.finalUrl].filter((u): u is string => !!u));
  let tab: number | undefined;
  for (let i = recent.length - 1; i >= 0; i--) {
    const r = recent[i]!;
    if (!urls.has(r.url) || !inWindow(r.time, start)) continue;
    tab = r.tabId;
    break;
  }
  if (tab === undefined) return undefined;
  const keys = new Set([...urls].map(urlKey));
  if (others.some((o) => keys.has(o.key) && inWindow(o.time, start))) return "ambiguous";
  return tab;
}

export function toDownloadInfo(item: DownloadItemLike, tabId: number): DownloadInfo {
  const start = Date.parse(item.startTime);
  const end = item.endTime ? Date.parse(item.endTime) : NaN;
  const out: DownloadInfo = {
    id: item.id,
    url: item.finalUrl || item.url,
    filename: item.filename,
    bytesReceived: item.bytesReceived,
    state: item.state,
    start: Number.isFinite(start) ? start : 0,
    tabId,
  };
  if (item.mime) out.mime = item.mime;
  if (item.totalBytes > 0) out.totalBytes = item.totalBytes;
  if (item.error) out.error = item.error;
  if (Number.isFinite(end)) out.end = end;
  return out;
}

/** Whether a download satisfies a wait for text (in its URL or file name). */
export function matchesWait(d: DownloadInfo, text: string | undefined): boolean {
  if (!text) return true;
  const t = text.toLowerCase();
  return d.url.toLowerCase().includes(t) || d.filename.toLowerCase().includes(t);
}
