// Matching downloads to shared tabs. chrome.downloads items carry no tab id,
// so a download is attributed to a shared tab when that tab requested the
// download's URL (or its final URL after redirects) shortly before the
// download started. Downloads nothing matches — those of tabs that are not
// shared, of the person's own typing in the address bar, of blob: URLs —
// are never listed.

import type { DownloadInfo } from "./protocol.gen";
import type { RecentRequest } from "./netlog";

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

/** The shared tab that started the download, or undefined. */
export function matchTab(item: DownloadItemLike, recent: RecentRequest[], known: Record<string, number>): number | undefined {
  const k = known[String(item.id)];
  if (k !== undefined) return k;
  const start = Date.parse(item.startTime);
  const urls = new Set([item.url, item.finalUrl].filter((u): u is string => !!u));
  for (let i = recent.length - 1; i >= 0; i--) {
    const r = recent[i]!;
    if (!urls.has(r.url)) continue;
    if (Number.isFinite(start) && (r.time > start + 5_000 || start - r.time > MATCH_WINDOW_MS)) continue;
    return r.tabId;
  }
  return undefined;
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
