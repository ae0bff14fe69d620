// When Chrome's debugger cannot attach (issue 44): an organisation's policy
// (ExtensionSettings runtime_blocked_hosts: Chromium 156 refuses the
// debugger for a tab with a frame on such a host, "This page cannot be
// scripted due to an ExtensionsSettings policy", and from Chrome 155 a
// non-empty list is said to refuse it everywhere; Edge applies
// DeveloperToolsAvailability), another debugger holding the tab, or a page
// Chrome protects. The debugger mode's input then falls back to synthetic
// input and says so; what cannot fall back names the reason and what the
// person can do, never Chrome's raw text alone or a stack.

export type AttachReason = "policy" | "another" | "protected" | "other";

/** Why Chrome refused to attach, from its error text. */
export function attachReason(chromeMessage: string): AttachReason {
  const m = chromeMessage.toLowerCase();
  if (/polic|administrator|blocked by|runtime_blocked|enterprise/.test(m)) return "policy";
  if (/another debugger|already attached/.test(m)) return "another";
  if (/cannot (access|attach|debug)|chrome:\/\/|chrome-extension:\/\/|devtools:\/\/|web ?store|not allowed|no permission|permission/.test(m)) return "protected";
  return "other";
}

const WHY: Record<AttachReason, string> = {
  policy: "your organisation's policy does not let extensions use Chrome's debugger here",
  another: "another debugger (DevTools, or another extension) is attached to the tab",
  protected: "Chrome does not let extensions debug this page (a page Chrome protects, or a site in it your organisation's policy keeps extensions from)",
  other: "Chrome refused to attach its debugger",
};

const TODO: Record<AttachReason, string> = {
  policy: "Only the organisation's administrator can change that",
  another: "The person can close DevTools (or the other debugging tool) for this tab and try again",
  protected: "The person can do this step themselves; only the organisation's administrator can change a policy",
  other: "The person can try again, or switch \"Use Chrome's debugger\" off in the monkbrowse popup",
};

/** Chrome refused to attach its debugger to the tab; the message says why and what the person can do. */
export class AttachError extends Error {
  readonly reason: AttachReason;
  constructor(
    readonly tabId: number,
    readonly chromeMessage: string,
  ) {
    const reason = attachReason(chromeMessage);
    super(`Chrome's debugger cannot be used in tab ${tabId}: ${WHY[reason]} (Chrome says: ${oneLine(chromeMessage)}). ${TODO[reason]}.`);
    this.name = "AttachError";
    this.reason = reason;
  }
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > 160 ? `${t.slice(0, 160)}…` : t;
}

/** The note of an action done with synthetic input because the debugger could not attach. */
export function fallbackNote(e: AttachError): string {
  return (
    `Done with synthetic input instead of real input: ${WHY[e.reason]}, so the debugger mode could not attach. ` +
    "Synthetic input works on most pages; if the page ignored it, check with browser_snapshot." +
    (e.reason === "another" ? " Closing DevTools for this tab brings real input back." : "")
  );
}

/**
 * The note of a debugger-mode click on a canvas's fallback content (issue
 * 41): such an element has no box on screen, so no real click at a point can
 * reach it; it is clicked as without the debugger, and the AI is told.
 */
export const CANVAS_FALLBACK_NOTE =
  "Done with synthetic input instead of real input: the element is fallback content inside a <canvas>, which has no place on screen " +
  "for a real click to reach (Chrome's debugger clicks at a point). It was clicked with a synthetic click, as without the debugger.";
