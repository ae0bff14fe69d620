// Editing commands for the debugger mode's real keys (Input.dispatchKeyEvent).
// A key event sent through the debugger runs the renderer's own key bindings,
// but not every binding a person's key gets: measured in Chromium 156 on a
// ProseMirror editor, every caret key (arrows, Home, End, PageUp, PageDown)
// alone and with Shift, Ctrl and Ctrl+Shift moved the caret as a person's key
// does except Ctrl+Home, which did nothing. Those keys carry the command that
// does what the person's key does; the renderer runs it as the key's default
// action (a page that prevents the keydown still stops it).

import type { KeyPress } from "./page/keys";

/** "ctrl+home" → the editing commands a real key of that combination runs. */
const COMMANDS: Record<string, string[]> = {
  "ctrl+a": ["selectAll"],
  "ctrl+home": ["moveToBeginningOfDocument"],
};

/** The editing commands to send with kp's keydown ([] for the renderer's own bindings). */
export function editingCommands(kp: KeyPress): string[] {
  const m = kp.modifiers;
  const combo = [m.ctrl ? "ctrl" : "", m.alt ? "alt" : "", m.meta ? "meta" : "", m.shift ? "shift" : "", kp.key.toLowerCase()].filter((p) => p !== "").join("+");
  return COMMANDS[combo] ?? [];
}
