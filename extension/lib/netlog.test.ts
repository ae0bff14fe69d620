import { describe, expect, it } from "vitest";
import { AMBIGUOUS_TAB, matchTab, matchesWait, toDownloadInfo } from "./downloads";
import { MAX_PER_TAB, NetLog, statusText } from "./netlog";

const req = (id: string, url: string, type = "xmlhttprequest", t = 1000) => ({
  requestId: id, tabId: 5, frameId: 0, method: "GET", url, type, timeStamp: t,
});

describe("NetLog", () => {
  it("records a request's life: status, size, mime, duration, failure", () => {
    const log = new NetLog();
    log.begin(req("1", "https://a.test/api", "xmlhttprequest", 1000));
    log.complete({ requestId: "1", tabId: 5, statusCode: 404, statusLine: "HTTP/1.1 404 Not Found", timeStamp: 1042.5,
      responseHeaders: [{ name: "Content-Length", value: "17" }, { name: "content-type", value: "application/json; charset=utf-8" }] });
    log.begin(req("2", "https://ads.test/x", "script", 1001));
    log.fail({ requestId: "2", tabId: 5, error: "net::ERR_BLOCKED_BY_CLIENT", timeStamp: 1003 });
    const r = log.list(5, {}).requests;
    expect(r[0]).toMatchObject({ id: 1, status: 404, statusText: "Not Found", size: 17, mimeType: "application/json", state: "done", duration: 42.5 });
    expect(r[1]).toMatchObject({ id: 2, state: "failed", error: "net::ERR_BLOCKED_BY_CLIENT", duration: 2 });
  });

  it("follows redirects in one entry, filters, and lists only newer ones with since", () => {
    const log = new NetLog();
    log.begin(req("1", "https://a.test/old"));
    log.begin(req("1", "https://a.test/new"));
    log.begin(req("2", "https://a.test/API/two"));
    expect(log.list(5, {}).requests.map((e) => e.url)).toEqual(["https://a.test/new", "https://a.test/API/two"]);
    expect(log.list(5, { filter: "api" }).requests.map((e) => e.id)).toEqual([2]);
    expect(log.list(5, { since: 1 }).requests.map((e) => e.id)).toEqual([2]);
  });

  it("starts a new list at the main-frame request of a committed page and stays bounded", () => {
    const log = new NetLog();
    log.begin(req("1", "https://a.test/one", "main_frame"));
    log.begin(req("2", "https://a.test/img.png", "image"));
    log.begin(req("3", "https://a.test/two", "main_frame"));
    log.committed(5, "https://a.test/two#top");
    expect(log.list(5, {}).requests.map((e) => e.id)).toEqual([3]);
    for (let i = 0; i < MAX_PER_TAB + 7; i++) log.begin(req(`x${i}`, `https://a.test/${i}`));
    const l = log.list(5, {});
    expect(l.total).toBe(MAX_PER_TAB);
    expect(l.dropped).toBe(8);
    log.committed(5, "https://b.test/"); // bfcache: no main-frame request
    expect(log.list(5, {}).total).toBe(0);
  });

  it("parses status lines", () => {
    expect(statusText("HTTP/1.1 200 OK")).toBe("OK");
    expect(statusText("HTTP/2 204")).toBe("");
    expect(statusText(undefined)).toBe("");
  });
});

describe("downloads", () => {
  const item = { id: 9, url: "https://a.test/r.csv", filename: "/d/r.csv", bytesReceived: 3, totalBytes: 3, state: "complete", startTime: new Date(10_000).toISOString() };
  it("matches a download to the shared tab that requested its URL just before", () => {
    expect(matchTab(item, [{ url: "https://a.test/r.csv", tabId: 4, time: 9_000 }], {})).toBe(4);
    expect(matchTab({ ...item, finalUrl: "https://cdn.test/r.csv" }, [{ url: "https://cdn.test/r.csv", tabId: 4, time: 9_000 }], {})).toBe(4);
    // Too old, or from no shared tab at all: not listed.
    expect(matchTab(item, [{ url: "https://a.test/r.csv", tabId: 4, time: 10_000 - 120_000 }], {})).toBeUndefined();
    expect(matchTab(item, [], {})).toBeUndefined();
    expect(matchTab(item, [], { "9": 7 })).toBe(7);
  });
  it("leaves out a download whose URL a tab that is not shared also requested in the window", () => {
    const shared = [{ url: "https://a.test/r.csv", tabId: 4, time: 9_000 }];
    const log = new NetLog();
    // The person's own tab (not shared) fetches the same URL a second later.
    log.other("https://a.test/r.csv", 9_500);
    expect(log.state.others![0]!.key).not.toContain("a.test"); // only a hash is kept
    expect(matchTab(item, shared, {}, log.state.others)).toBe("ambiguous");
    expect(matchTab({ ...item, finalUrl: "https://cdn.test/r.csv" }, [{ url: "https://cdn.test/r.csv", tabId: 4, time: 9_000 }], {}, log.state.others)).toBe("ambiguous");
    // Another URL, or outside the window: the shared tab's.
    const other = new NetLog();
    other.other("https://a.test/other.csv", 9_500);
    other.other("https://a.test/r.csv", 10_000 - 120_000);
    expect(matchTab(item, shared, {}, other.state.others)).toBe(4);
    // Once found ambiguous, it stays so (the other request may be forgotten).
    expect(matchTab(item, shared, { "9": AMBIGUOUS_TAB })).toBe("ambiguous");
  });
  it("converts and matches waits on URL or file name", () => {
    const d = toDownloadInfo(item, 4);
    expect(d).toMatchObject({ id: 9, filename: "/d/r.csv", state: "complete", start: 10_000, tabId: 4, totalBytes: 3 });
    expect(matchesWait(d, "R.CSV")).toBe(true);
    expect(matchesWait(d, "zip")).toBe(false);
    expect(matchesWait(d, undefined)).toBe(true);
  });
});
