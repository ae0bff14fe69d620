// Isolated-world content script of every frame of a shared tab: builds snapshots, performs
// actions by ref and answers console_logs, for messages {cs: true, op, args}
// from the service worker (docs/CONTRACTS.md). The page logic lives in
// lib/page; this file wires it to the extension. Injected by the service
// worker into shared tabs only (not in the manifest); unsharing disposes it.

import { defineContentScript } from "wxt/utils/define-content-script";
import { noteCapture } from "../lib/page/gesture";
import { channelReader, NO_INTERNALS } from "../lib/page/internals";
import { ConsoleBuffer, channelOf, isSecret, parseDialog, parseEntry, parseReplay, type Channel, type PageDialog } from "../lib/page/console";
import { isCsMessage, respond, SETTLING_OPS, type PageContext } from "../lib/page/handler";
import { LinkInbox } from "../lib/page/framelink";
import { AskBanner } from "../lib/page/ask-banner";
import { workProbe } from "../lib/page/pagework";
import { RefRegistry } from "../lib/page/refs";
import { settleDom, timerSleep, type Sleep } from "../lib/page/settle";
import { ACTION_OPS, type BgMessage } from "../lib/messages";
import { eventElement, personEdit, pointedAt } from "../lib/page/person";
import { recordDocument } from "../lib/page/recorder";
import { isSecretField, watchSecrets } from "../lib/page/secret";
import { keepInMemory, report, reported, setDiagSink } from "../lib/diag";

export default defineContentScript({
  matches: ["<all_urls>"],
  registration: "runtime",
  // WXT would otherwise window.postMessage a "script started" note the page can see.
  noScriptStartedPostMessage: true,
  main() {
    install();
  },
});

/** The running instance, kept on the isolated world's global so a second injection finds it. */
interface Instance {
  alive(): boolean;
  dispose(): void;
  /**
   * Listens to the hooks on the channel of secret (the service worker calls
   * it right after claiming the hooks with the same secret: inject.ts).
   * Before it, nothing from the page is taken for the hooks' word.
   */
  connect(secret: unknown): boolean;
  /** Whether this document reports the person's steps now (the tab records, issue 42); the e2e suite reads it. */
  recording(): boolean;
}
const KEY = "__monkbrowseContentScript";

function install(): void {
  // Failures go to the service worker's diagnostics log; when it cannot be
  // reached (the extension reloading), they stay in this page's memory ring.
  setDiagSink((e) => {
    const msg: BgMessage<"diag"> = { to: "bg", kind: "diag", where: e.where, message: e.message };
    chrome.runtime.sendMessage(msg).catch(() => keepInMemory(e));
  });
  const g = globalThis as unknown as Record<string, Instance | undefined>;
  const prev = g[KEY];
  // The service worker injects this file again when no content script answered;
  // an instance that is still connected to the extension keeps serving.
  if (prev && prev.alive()) return;
  // An instance orphaned by an extension reload cannot answer any more: replace it.
  try {
    prev?.dispose();
  } catch (e) {
    report("content script: disposing the orphaned instance", e);
  }
  g[KEY] = start();
}

/** The ops whose answers carry the dialogs seen since the last report (actions and snapshots). */
const REPORTS_DIALOGS: ReadonlySet<string> = new Set(["snapshot", ...ACTION_OPS]);

/**
 * When each op's settle waits for an animation frame (settle.ts): input ops
 * only when the page asked for one; clicks and hovers also when the page
 * observes layout (a positioned menu, a lazy list) or may; scrolls and drags
 * always (the page's scroll listeners and observers run in the frame).
 */
function frameFor(op: string): "always" | "asked" | "layout" {
  if (op === "type" || op === "press_key" || op === "select" || op === "fill_form") return "asked";
  if (op === "click" || op === "hover" || op === "click_xy") return "layout";
  return "always";
}
/** Above this many elements a snapshot is announced to the service worker as a long job ("busy"). */
const BUSY_ELEMENTS = 5000;
/** The ops after which the page settles (handler.ts), by the message's own op string. */
const SETTLING: ReadonlySet<string> = SETTLING_OPS;

type NavigationLike = EventTarget;

/**
 * Notices navigations the page begins, through the Navigation API's navigate
 * event (it fires for link clicks, form submissions and script navigations,
 * and reaches this isolated world). Chromium does not fire it on data: URLs,
 * so there the page cannot tell and the service worker keeps its grace period.
 */
function watchNavigate(doc: Document): (() => boolean) | undefined {
  const win = doc.defaultView as (Window & { navigation?: NavigationLike }) | null;
  const nav = win?.navigation;
  if (!nav || !/^https?:$/.test(doc.location.protocol)) return undefined;
  let started = false;
  const on = () => {
    started = true;
  };
  nav.addEventListener("navigate", on);
  return () => {
    nav.removeEventListener("navigate", on);
    return started;
  };
}

function start(): Instance {
  const doc = document;
  // Secret is sticky (issue 40): from now on a field that is or was a
  // password (or a credential, code or card field) stays masked, whatever
  // the page makes of it later. First, before anything else runs here (a
  // field the page switched before this script was injected is not seen).
  const unwatchSecrets = watchSecrets(doc, shadowRootGetter());
  const logs = new ConsoleBuffer();
  // What the page starts during an action (its hooks count it), for the settle.
  const work = workProbe(doc);
  let currentOp = "";
  const ctx: PageContext = {
    doc,
    refs: new RefRegistry(),
    logs,
    shadowRoot: shadowRootGetter(),
    // After an action, answer once the page has stopped changing (bounded).
    settle: () => settleDom(doc, { sleep: pageSleep(doc), work: work.query, frame: frameFor(currentOp) }),
    watchNavigate: () => watchNavigate(doc),
    // ElementInternals over the channel; before a claim, none could be read.
    internals: () => (channel ? channelReader(channel) : NO_INTERNALS),
  };

  // Dialogs the hooks answered and the AI has not been told about yet: they
  // ride on the answer of the next action or snapshot.
  const dialogs: PageDialog[] = [];
  const onEntry = (ev: Event) => {
    const d = (ev as CustomEvent).detail;
    if (typeof d !== "string") return;
    try {
      const raw: unknown = JSON.parse(d);
      const e = parseEntry(raw);
      if (e) logs.push(e);
      const dialog = parseDialog(raw);
      if (dialog) {
        if (dialogs.length < 20) dialogs.push(dialog);
        // An armed answer is for one dialog: the service worker must not arm
        // the tab's next document with it again.
        if (dialog.armed) {
          const msg: BgMessage<"dialog-used"> = { to: "bg", kind: "dialog-used" };
          chrome.runtime.sendMessage(msg).catch(reported("content script: telling the worker a dialog used its armed answer"));
        }
      }
    } catch {
      // silent: not ours; any script in the page can dispatch this event, and its garbage must not reach the log
    }
  };
  const onReplay = (ev: Event) => logs.replace(parseReplay((ev as CustomEvent).detail));
  // The page's setPointerCapture/releasePointerCapture calls (gesture.ts).
  const onCapture = (ev: Event) => {
    const el = ev.composedPath()[0];
    if (el instanceof Element) noteCapture(el, (ev as CustomEvent).detail === "1");
  };
  let channel: Channel | null = null;
  const disconnect = () => {
    if (!channel) return;
    doc.removeEventListener(channel.entry, onEntry);
    doc.removeEventListener(channel.replay, onReplay);
    doc.removeEventListener(channel.capture, onCapture, true);
    channel = null;
  };
  const connect = (secret: unknown): boolean => {
    if (!isSecret(secret)) return false;
    disconnect();
    channel = channelOf(secret);
    doc.addEventListener(channel.entry, onEntry);
    doc.addEventListener(channel.replay, onReplay);
    doc.addEventListener(channel.capture, onCapture, true);
    // The MAIN-world hooks ran first; ask them for what they saw so far.
    doc.dispatchEvent(new CustomEvent(channel.hello));
    return true;
  };
  // The tokens this frame's parent window posts into it (frame link, lib/page/framelink.ts).
  const inbox = new LinkInbox(window);
  // The hand-off notice: says the AI waits; the message and the answer are in the popup only.
  const banner = new AskBanner(doc);

  // The person's own edits and pointing (issue 29, lib/page/person.ts): each
  // trusted input goes to the service worker at once with its time, which
  // decides whether monkbrowse was acting in the tab then. Refs only in the
  // top frame: a same-origin frame's elements get theirs from its parent,
  // a cross-origin frame's need the worker's frame number (not given yet).
  const topFrame = window === window.top;
  const personRefs = topFrame ? ctx.refs : null;
  let lastTyped: { el: Element | null; at: number } = { el: null, at: 0 };
  let lastContext: Element | null = null;
  const onPerson = (ev: Event) => {
    if (!ev.isTrusted) return;
    const now = Date.now();
    // The field the person types into is looked at now, as it is (a field
    // inside a shadow root the watcher does not reach included).
    const at = ev.type === "input" || ev.type === "focusin" ? eventElement(ev) : null;
    if (at) isSecretField(at);
    if (ev.type === "focusin") return;
    if (ev.type === "input") {
      // One message a second per field is plenty: repeats are one entry anyway.
      const el = eventElement(ev);
      if (el === lastTyped.el && now - lastTyped.at < 1000) return;
      lastTyped = { el, at: now };
    }
    let edit;
    try {
      edit = personEdit(ev, personRefs);
    } catch (e) {
      report("content script: describing the person's edit", e);
      return;
    }
    if (!edit) return;
    const msg: BgMessage<"person"> = { to: "bg", kind: "person", edit, at: now, refHigh: ctx.refs.high };
    chrome.runtime.sendMessage(msg).catch(reported("content script: telling the worker about the person's edit"));
  };
  const onContext = (ev: Event) => {
    if (ev.isTrusted) lastContext = eventElement(ev);
  };
  for (const type of ["input", "change", "click", "focusin"]) doc.addEventListener(type, onPerson, true);
  doc.addEventListener("contextmenu", onContext, true);

  // Recording (issue 42): only while the worker says this tab records does
  // this document listen; each step goes to the worker at once (the
  // recording lives there, across navigations). A secret's value is never read.
  let stopRecording: (() => void) | null = null;
  const setRecording = (on: boolean) => {
    if (on && !stopRecording) {
      stopRecording = recordDocument(
        doc,
        (step) => {
          const msg: BgMessage<"record-step"> = { to: "bg", kind: "record-step", step, at: Date.now() };
          chrome.runtime.sendMessage(msg).catch(reported("content script: sending a recorded step"));
        },
        (e) => report("content script: describing a recorded step", e),
      );
    } else if (!on && stopRecording) {
      stopRecording();
      stopRecording = null;
    }
  };

  const onMessage = (msg: unknown, _sender: chrome.runtime.MessageSender, sendResponse: (r: unknown) => void) => {
    if (!isCsMessage(msg)) return false;
    if (msg.op === "native_dialogs") {
      // Handled here, not in lib/page: it only relays to the MAIN-world hooks.
      if (channel) doc.dispatchEvent(new CustomEvent(channel.native, { detail: (msg.args as { on?: unknown } | undefined)?.on === true ? "1" : "0" }));
      sendResponse({ ok: true, result: {} });
      return false;
    }
    if (msg.op === "ask_show" || msg.op === "ask_hide") {
      const a = (msg.args ?? {}) as { askId?: unknown };
      if (msg.op === "ask_hide") banner.hide(typeof a.askId === "string" ? a.askId : undefined);
      else if (typeof a.askId === "string") banner.show(a.askId);
      sendResponse({ ok: true, result: {} });
      return false;
    }
    if (msg.op === "pointed") {
      // What "Show this to the AI" points at: the selection, else the last right-click.
      let pointed = null;
      try {
        pointed = pointedAt(doc, lastContext, personRefs);
      } catch (e) {
        report("content script: reading what the person pointed at", e);
      }
      sendResponse({ ok: true, result: { pointed, refHigh: ctx.refs.high } });
      return false;
    }
    if (msg.op === "record") {
      setRecording((msg.args as { on?: unknown } | undefined)?.on === true);
      sendResponse({ ok: true, result: {} });
      return false;
    }
    if (msg.op === "frame_link") {
      const inlined = inbox.inlined();
      const a = msg.args as { expect?: unknown; snapshot?: unknown } | undefined;
      const expect = Array.isArray(a?.expect) ? a.expect.filter((t): t is string => typeof t === "string") : [];
      const snapArgs = a?.snapshot !== null && typeof a?.snapshot === "object" ? a.snapshot : undefined;
      // A frame its parent posts a token into answers its snapshot with the
      // token, saving the service worker a second question; it reads itself
      // at once, while the token is on its way (kept only if one comes).
      const snap = snapArgs !== undefined && !inlined ? respond(ctx, { cs: true, op: "snapshot", args: snapArgs }) : undefined;
      void Promise.all([inlined ? Promise.resolve([]) : inbox.take(expect), snap]).then(([tokens, r]) => {
        if (!r || !r.ok || tokens.length === 0) return sendResponse({ ok: true, result: { inlined, tokens } });
        const snapshot = dialogs.length > 0 ? { ...r.result, dialogs: dialogs.splice(0) } : r.result;
        sendResponse({ ok: true, result: { inlined, tokens, snapshot } });
      });
      return true;
    }
    if (msg.op === "snapshot" && doc.getElementsByTagName("*").length > BUSY_ELEMENTS) {
      // A snapshot of a huge page can keep this thread busy for seconds: the
      // service worker must not take that for a page blocked by a dialog.
      const note: BgMessage<"busy"> = { to: "bg", kind: "busy" };
      chrome.runtime.sendMessage(note).catch(reported("content script: telling the worker a long snapshot begins"));
    }
    const settles = SETTLING.has(msg.op);
    currentOp = msg.op;
    if (settles) work.begin();
    void respond(ctx, msg).then((r) => {
      if (settles) work.end();
      if (r.ok && dialogs.length > 0 && REPORTS_DIALOGS.has(msg.op)) {
        r = { ok: true, result: { ...r.result, dialogs: dialogs.splice(0) } };
      }
      sendResponse(r);
    });
    return true; // answer asynchronously
  };
  chrome.runtime.onMessage.addListener(onMessage);

  return {
    alive: () => {
      try {
        return typeof chrome.runtime?.id === "string";
      } catch {
        return false;
      }
    },
    dispose: () => {
      try {
        chrome.runtime.onMessage.removeListener(onMessage);
      } catch (e) {
        report("content script: removing its message listener", e);
      }
      disconnect();
      inbox.dispose();
      banner.hide();
      for (const type of ["input", "change", "click", "focusin"]) doc.removeEventListener(type, onPerson, true);
      unwatchSecrets();
      setRecording(false);
      doc.removeEventListener("contextmenu", onContext, true);
    },
    connect,
    recording: () => stopRecording !== null,
  };
}

/**
 * Sleeps with the page's timers while it is visible, and through the service
 * worker while it is hidden: Chrome runs a hidden page's timers only once a
 * second, which would make every action in a background tab last a second.
 */
function pageSleep(doc: Document): Sleep {
  return (ms) => {
    if (doc.visibilityState !== "hidden") return timerSleep(ms);
    const msg: BgMessage<"sleep"> = { to: "bg", kind: "sleep", ms };
    return chrome.runtime.sendMessage(msg).then(
      () => undefined,
      () => timerSleep(ms), // the extension is gone or reloading: the page's own timer then
    );
  };
}

/** chrome.dom.openOrClosedShadowRoot lets snapshots see closed shadow roots too. */
function shadowRootGetter(): (el: Element) => ShadowRoot | null {
  const api = (chrome as unknown as { dom?: { openOrClosedShadowRoot?: (el: HTMLElement) => ShadowRoot | null } }).dom;
  const fn = api?.openOrClosedShadowRoot;
  return (el: Element) => {
    if (fn) {
      try {
        return fn(el as HTMLElement) ?? null;
      } catch {
        // silent: expected for elements that are not HTMLElements (SVG…); their shadowRoot below
      }
    }
    return (el as HTMLElement).shadowRoot ?? null;
  };
}
