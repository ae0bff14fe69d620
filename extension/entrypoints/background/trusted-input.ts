// The debugger mode's trusted input: the acting ops (click, hover, type,
// press_key, click_xy, drag_xy) as real input events through
// chrome.debugger, and BrowserPort.content, which picks them or the content
// script's DOM actions.

import type { CsOp, CsOps, PageNotes } from "../../lib/messages";
import { AttachError, CANVAS_FALLBACK_NOTE, fallbackNote } from "../../lib/debugger-fallback";
import { createInputPace } from "../../lib/worker/input-pace";
import { parseKeyCombo, type KeyPress } from "../../lib/page/keys";
import { contentOp, contentOpIn } from "./content-ops";
import { debuggerEnabled, withDebugger, type Send } from "./debugger";
import { framedContent, guardInput, refBox, refFrame, splitRef } from "./frames";
import { sendingInput } from "./input-guard";
import { withChromiumTree } from "./chromium-ax";

type MouseButton = "left" | "right" | "middle" | "none";

/** Real keys at a person's pace after a real mouse press (lib/worker/input-pace.ts). */
const pace = createInputPace();

async function mouseEvent(send: Send, type: string, x: number, y: number, button: MouseButton = "none", clickCount = 0, buttons = 0): Promise<void> {
  await send("Input.dispatchMouseEvent", { type, x, y, button, clickCount, buttons });
}

async function trustedClick(send: Send, tabId: number, x: number, y: number, button: MouseButton = "left", count = 1): Promise<void> {
  const mask = button === "left" ? 1 : button === "right" ? 2 : 4;
  await mouseEvent(send, "mouseMoved", x, y);
  for (let n = 1; n <= count; n++) {
    await mouseEvent(send, "mousePressed", x, y, button, n, mask);
    pace.pressed(tabId);
    await mouseEvent(send, "mouseReleased", x, y, button, n, 0);
  }
}

function modifierBits(kp: KeyPress): number {
  const m = kp.modifiers;
  return (m.alt ? 1 : 0) | (m.ctrl ? 2 : 0) | (m.meta ? 4 : 0) | (m.shift ? 8 : 0);
}

async function trustedKey(send: Send, kp: KeyPress): Promise<void> {
  const modifiers = modifierBits(kp);
  const printable = kp.text !== "" && !kp.modifiers.ctrl && !kp.modifiers.meta && !kp.modifiers.alt;
  const base = { key: kp.key, code: kp.code, windowsVirtualKeyCode: kp.keyCode, nativeVirtualKeyCode: kp.keyCode, modifiers };
  const commands = kp.modifiers.ctrl && kp.key.toLowerCase() === "a" ? { commands: ["selectAll"] } : {};
  await send("Input.dispatchKeyEvent", { type: printable ? "keyDown" : "rawKeyDown", ...base, ...(printable ? { text: kp.text, unmodifiedText: kp.text } : {}), ...commands });
  await send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
}

function center(box: { visible: { x: number; y: number; width: number; height: number } }, ref: string): { x: number; y: number } {
  const v = box.visible;
  if (v.width < 1 || v.height < 1) throw new Error(`ref ${ref} is not in the visible area even after scrolling to it; take a new browser_snapshot`);
  return { x: v.x + v.width / 2, y: v.y + v.height / 2 };
}

/**
 * Where a ref's element is on screen, scrolled into view, for real input: in
 * the top page's viewport, where Input.dispatchMouseEvent aims on the tab's
 * target (Chrome hit-tests it into the frame there, out-of-process ones too),
 * so a frame ref's point includes its frames' offsets (frames.ts refBox).
 */
async function refPoint(tabId: number, ref: string): Promise<{ x: number; y: number }> {
  return center(await refBox(tabId, ref), ref);
}

/**
 * The ops that become real input when the debugger mode is on, each as input
 * events; a note for the AI when part of it could not be real input.
 */
const TRUSTED: { [K in "click" | "hover" | "type" | "press_key" | "click_xy" | "drag_xy"]: (send: Send, tabId: number, args: CsOps[K]["args"]) => Promise<string | void> } = {
  click: async (send, tabId, { ref }) => {
    // The DOM click's checks and effect watch in the ref's frame (no false
    // "Clicked"): the verdict is click_effect's, after the settle. A frame
    // ref's point is its box in the top page (refBox, which scrolls each
    // frame level itself), so its check does not scroll again: a scroll in
    // an out-of-process frame reaches the parents later.
    const inFrame = splitRef(ref) !== null;
    const framed = inFrame ? await refBox(tabId, ref) : null;
    const box = await framedContent(tabId, "click_check", { ref, scroll: !inFrame });
    // A canvas's fallback content: no point reaches it, the DOM click does
    // (its own checks and watch), and the answer says so.
    if ("dom" in box) {
      await framedContent(tabId, "click", { ref });
      return CANVAS_FALLBACK_NOTE;
    }
    const p = center(framed ?? box, ref);
    await trustedClick(send, tabId, p.x, p.y);
  },
  hover: async (send, tabId, { ref }) => {
    const p = await refPoint(tabId, ref);
    await mouseEvent(send, "mouseMoved", p.x, p.y);
  },
  type: async (send, tabId, { ref, text, submit }) => {
    const p = await refPoint(tabId, ref);
    await trustedClick(send, tabId, p.x, p.y);
    await trustedKey(send, parseKeyCombo("Ctrl+A"));
    if (text === "") await trustedKey(send, parseKeyCombo("Backspace"));
    else await send("Input.insertText", { text });
    if (submit === true) await trustedKey(send, parseKeyCombo("Enter"));
  },
  press_key: async (send, tabId, { key }) => {
    await pace.beforeKey(tabId);
    await trustedKey(send, parseKeyCombo(key));
  },
  click_xy: (send, tabId, { x, y, button, double }) =>
    trustedClick(send, tabId, x, y, button === "right" || button === "middle" ? button : "left", double === true ? 2 : 1),
  drag_xy: async (send, tabId, { startX: sx, startY: sy, endX: ex, endY: ey }) => {
    await mouseEvent(send, "mouseMoved", sx, sy);
    await mouseEvent(send, "mousePressed", sx, sy, "left", 1, 1);
    pace.pressed(tabId);
    for (let i = 1; i <= 10; i++) {
      await mouseEvent(send, "mouseMoved", sx + ((ex - sx) * i) / 10, sy + ((ey - sy) * i) / 10, "left", 0, 1);
    }
    await mouseEvent(send, "mouseReleased", ex, ey, "left", 1, 0);
  },
};

type TrustedOp = keyof typeof TRUSTED;

/** One action as real input through the debugger, then the page's settle; answers the op's note, if any. */
async function trustedOp<K extends TrustedOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<string | void> {
  // Marked as monkbrowse's input (the hand-off banner ignores it) until
  // the page has settled after it.
  let note: string | void = undefined;
  await sendingInput(tabId, async () => {
    note = await withDebugger(tabId, (send) => TRUSTED[op](send, tabId, args));
    // Wait for the page to settle, as the DOM actions do (a navigation the
    // input started makes this answer go missing: csNavigating handles that),
    // in the frame of the ref acted on; a click's answer also says when the
    // page showed no effect (click_effect, routed to the ref's frame).
    const ref = (args as { ref?: unknown }).ref;
    if (op === "click" && typeof ref === "string") {
      await framedContent(tabId, "click_effect", { ref });
      return;
    }
    const frame = typeof ref === "string" ? (await refFrame(tabId, ref)).frame : null;
    await (frame ? contentOpIn(tabId, frame, "settle", {}) : contentOp(tabId, "settle", {}));
  });
  return note;
}


/**
 * BrowserPort.content: real input for the acting ops when the debugger mode
 * is on (frame refs too: their points include the frames' offsets), else
 * the content script's DOM actions in the ref's frame (frames.ts).
 */
export async function content<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  // The debugger mode's snapshot carries Chromium's tree where ours is blind (chromium-ax.ts).
  if (op === "snapshot") return framedContent(tabId, op, await withChromiumTree(tabId, args as CsOps["snapshot"]["args"]));
  if (!Object.hasOwn(TRUSTED, op) || !(await debuggerEnabled())) return framedContent(tabId, op, args);
  // TypeScript cannot carry the check on op over to args (K may be a union);
  // each trusted handler is typed by the table. The answer is the notes only
  // (the executor reads no more of a trusted op's answer).
  // No content script sees real input: the site rules of the frames it lands in are checked first (issue 44).
  await guardInput(tabId, op, args as Record<string, unknown>);
  let note: string | void;
  try {
    note = await trustedOp(tabId, op as K & TrustedOp, args as CsOps[K & TrustedOp]["args"]);
  } catch (e) {
    // The debugger could not attach (a policy, another debugger, a protected
    // page; nothing was sent): synthetic input does the job, and says so (issue 44).
    if (!(e instanceof AttachError)) throw e;
    const r = (await framedContent(tabId, op, args)) as CsOps[K]["result"] & PageNotes;
    return { ...r, fallback: fallbackNote(e) } as CsOps[K]["result"];
  }
  return (note ? { fallback: note } : {}) as CsOps[K]["result"];
}
