// chrome.webRequest and chrome.downloads for browser_network_requests and
// browser_downloads. Only shared tabs are recorded. The log lives in memory
// and is saved to chrome.storage.session (debounced), because Chrome
// suspends the service worker when it is idle: a log kept only in memory
// would be empty by the time the AI asks.

import { AMBIGUOUS_TAB, matchesWait, matchTab, toDownloadInfo, type DownloadItemLike } from "../../lib/downloads";
import { NetLog, toWire, type NetState } from "../../lib/netlog";
import { TIMEOUTS_MS, type DownloadInfo, type DownloadsRequest, type DownloadsResult, type NetworkRequest } from "../../lib/protocol.gen";
import type { Shares } from "../../lib/storage";
import { reported } from "../../lib/diag";
import { blockedFrames } from "../../lib/worker/frame-rules";
import type { FrameInfo } from "../../lib/worker/frames";
import { ruleForUrl } from "./siterules";

const STATE_KEY = "netlog";
const DL_KEY = "downloadTabs";
const SAVE_DELAY_MS = 250;
/** A wait answers at most this long after it was asked (10 s below its wire timeout). */
export const MAX_WAIT_MS = TIMEOUTS_MS.browser_downloads - 10_000;
/** Only downloads that started this long before a wait, or later, can satisfy it. */
const WAIT_LOOKBACK_MS = 60_000;

let log = new NetLog();
let downloadTabs: Record<string, number> = {};
let shared = new Set<number>();
let ready: Promise<void> | undefined;
let saveTimer: ReturnType<typeof setTimeout> | undefined;

function load(readShares: () => Promise<Shares>): Promise<void> {
  ready ??= (async () => {
    const [got, shares] = await Promise.all([chrome.storage.session.get([STATE_KEY, DL_KEY]), readShares()]);
    const st = got[STATE_KEY] as NetState | undefined;
    if (st && typeof st === "object" && st.tabs && Array.isArray(st.recent)) log = new NetLog(st);
    const dl = got[DL_KEY];
    if (dl && typeof dl === "object") downloadTabs = dl as Record<string, number>;
    shared = new Set(Object.keys(shares).map(Number));
  })().catch(reported("network: loading the saved network log"));
  return ready;
}

function save(): void {
  if (saveTimer !== undefined) return;
  saveTimer = setTimeout(() => {
    saveTimer = undefined;
    log.prune(Date.now());
    void chrome.storage.session.set({ [STATE_KEY]: log.state, [DL_KEY]: downloadTabs }).catch(reported("network: saving the network log"));
  }, SAVE_DELAY_MS);
}

let readSharesFn: () => Promise<Shares> = async () => ({});

/** Every event waits for the saved state, then applies in arrival order. */
let chain: Promise<unknown> = Promise.resolve();
function apply(fn: () => void): void {
  chain = chain
    .then(() => load(readSharesFn))
    .then(() => {
      fn();
      save();
    })
    .catch(reported("network: applying an event"));
}

/** Called when shares change: unshared tabs' logs are forgotten at once. */
export function setShared(shares: Shares): void {
  apply(() => {
    const next = new Set(Object.keys(shares).map(Number));
    for (const id of shared) if (!next.has(id)) log.forget(id);
    for (const k of Object.keys(log.state.tabs)) if (!next.has(Number(k))) log.forget(Number(k));
    shared = next;
  });
}

export function forgetTab(tabId: number): void {
  apply(() => log.forget(tabId));
}

const FILTER: chrome.webRequest.RequestFilter = { urls: ["<all_urls>"] };

/** Registers the listeners; call once, synchronously, when the worker starts. */
export function installNetwork(readShares: () => Promise<Shares>): void {
  readSharesFn = readShares;
  void load(readShares);
  chrome.webRequest.onBeforeRequest.addListener(
    (d) => {
      apply(() => {
        // Not a shared tab's: only a hash of the URL, to tell ambiguous downloads (lib/downloads.ts).
        if (d.tabId < 0 || !shared.has(d.tabId)) {
          log.other(d.url, d.timeStamp);
          return;
        }
        log.begin({ requestId: d.requestId, tabId: d.tabId, frameId: d.frameId, method: d.method, url: d.url, type: d.type, timeStamp: d.timeStamp });
      });
      return undefined;
    },
    FILTER,
  );
  chrome.webRequest.onResponseStarted.addListener(
    (d) => {
      if (d.tabId < 0) return;
      apply(() => log.response(d));
    },
    FILTER,
    ["responseHeaders"],
  );
  chrome.webRequest.onCompleted.addListener(
    (d) => {
      if (d.tabId < 0) return;
      apply(() => log.complete(d));
    },
    FILTER,
    ["responseHeaders"],
  );
  chrome.webRequest.onErrorOccurred.addListener(
    (d) => {
      if (d.tabId < 0) return;
      apply(() => log.fail(d));
    },
    FILTER,
  );
  chrome.webNavigation.onCommitted.addListener((d) => {
    if (d.frameId !== 0) return;
    apply(() => log.committed(d.tabId, d.url));
  });
  chrome.downloads.onCreated.addListener((item) => {
    apply(() => {
      const tab = matchTab(item as DownloadItemLike, log.state.recent, {}, log.state.others);
      if (tab === "ambiguous") downloadTabs[String(item.id)] = AMBIGUOUS_TAB;
      else if (tab !== undefined && shared.has(tab)) downloadTabs[String(item.id)] = tab;
    });
  });
}

export async function networkRequests(
  tabId: number,
  opts: { filter?: string; since?: number },
): Promise<{ url: string; requests: NetworkRequest[]; total: number; dropped: number }> {
  await load(readSharesFn);
  await chain;
  const r = log.list(tabId, opts);
  // A frame the site rules keep from the AI (never; issue 44): its requests are not shown (nor their bodies).
  const kept = blockedFrames(((await chrome.webNavigation.getAllFrames({ tabId })) ?? []) as FrameInfo[], (url) => ruleForUrl(url));
  const requests = kept.size === 0 ? r.requests : r.requests.filter((e) => !kept.has(e.frameId));
  return { ...r, total: r.total - (r.requests.length - requests.length), requests: requests.map(toWire) };
}

async function sharedDownloads(): Promise<{ list: DownloadInfo[]; ambiguous: number }> {
  await load(readSharesFn);
  await chain;
  const items = (await chrome.downloads.search({ orderBy: ["-startTime"], limit: 500 })) as unknown as DownloadItemLike[];
  const out: DownloadInfo[] = [];
  let ambiguous = 0;
  for (const it of items) {
    const tab = matchTab(it, log.state.recent, downloadTabs, log.state.others);
    if (tab === "ambiguous") {
      // Ambiguous once, ambiguous for good (the other tab's request may be forgotten later).
      if (downloadTabs[String(it.id)] !== AMBIGUOUS_TAB) {
        downloadTabs[String(it.id)] = AMBIGUOUS_TAB;
        save();
      }
      ambiguous++;
      continue;
    }
    // Only tabs shared now: a tab that was unshared takes its downloads with it.
    if (tab === undefined || !shared.has(tab)) continue;
    if (downloadTabs[String(it.id)] === undefined) {
      downloadTabs[String(it.id)] = tab;
      save();
    }
    out.push(toDownloadInfo(it, tab));
  }
  return { list: out, ambiguous };
}

export async function downloads(req: DownloadsRequest): Promise<DownloadsResult> {
  const wait = req.wait;
  const result = (r: { list: DownloadInfo[]; ambiguous: number }, more: Partial<DownloadsResult> = {}): DownloadsResult =>
    r.ambiguous > 0 ? { downloads: r.list, ambiguous: r.ambiguous, ...more } : { downloads: r.list, ...more };
  if (!wait) return result(await sharedDownloads());
  const timeout = Math.min(Math.max(wait.timeoutMs ?? 30_000, 1), MAX_WAIT_MS);
  const asked = Date.now();
  const deadline = asked + timeout;
  const satisfied = (list: DownloadInfo[]) =>
    list.find((d) => d.state !== "in_progress" && d.start >= asked - WAIT_LOOKBACK_MS && matchesWait(d, wait.urlContains));
  for (;;) {
    const got = await sharedDownloads();
    const hit = satisfied(got.list);
    if (hit) return result(got, { waited: true, matched: hit.id });
    const left = deadline - Date.now();
    if (left <= 0) return result(got, { waited: true });
    // Wake on any download change, or poll every second (a change of an
    // unshared tab's download also wakes us, harmlessly).
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        chrome.downloads.onChanged.removeListener(done);
        chrome.downloads.onCreated.removeListener(done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, 1000));
      chrome.downloads.onChanged.addListener(done);
      chrome.downloads.onCreated.addListener(done);
    });
  }
}
