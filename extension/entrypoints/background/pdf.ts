// browser_pdf: Page.printToPDF through the debugger, saved as a download.

import type { TabLike } from "../../lib/executor";
import { debuggerEnabled, withDebugger } from "./debugger";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const PDF_NEEDS_DEBUGGER =
  "browser_pdf needs the debugger mode, which is off in this Chrome profile: ask the person to switch on \"Use Chrome's debugger\" in the monkbrowse options (For this Chrome profile). Chrome then shows a banner while monkbrowse works in the tab.";

export async function pdf(tab: TabLike): Promise<{ path: string; size: number }> {
  if (!(await debuggerEnabled())) throw new Error(PDF_NEEDS_DEBUGGER);
  const r = await withDebugger(tab.id, (send) => send<{ data: string }>("Page.printToPDF", { printBackground: true }));
  // eslint-disable-next-line no-control-regex -- control characters are what a file name must not hold
  const base = (tab.title || "page").replace(/[\\/:*?"<>|\x00-\x1f]+/g, " ").trim().slice(0, 80) || "page";
  const id = await chrome.downloads.download({
    url: `data:application/pdf;base64,${r.data}`,
    filename: `monkbrowse/${base}.pdf`,
    conflictAction: "uniquify",
    saveAs: false,
  });
  // Wait for Chrome to write the file (bounded).
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [item] = await chrome.downloads.search({ id });
    if (item?.state === "complete") return { path: item.filename, size: item.fileSize > 0 ? item.fileSize : item.bytesReceived };
    if (item?.state === "interrupted") throw new Error(`saving the PDF failed: ${item.error ?? "interrupted"}`);
    if (Date.now() > deadline) throw new Error("saving the PDF did not finish within 30 s");
    await sleep(100);
  }
}
