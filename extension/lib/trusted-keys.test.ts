// The debugger mode's real keys carry the editing commands the renderer does
// not run for them itself (Ctrl+Home, measured in Chromium 156; lib/trusted-keys.ts).
import { describe, expect, it } from "vitest";
import { parseKeyCombo } from "./page/keys";
import { editingCommands } from "./trusted-keys";

describe("editingCommands", () => {
  it("gives Ctrl+Home the document start and Ctrl+A select all", () => {
    expect(editingCommands(parseKeyCombo("Ctrl+Home"))).toEqual(["moveToBeginningOfDocument"]);
    expect(editingCommands(parseKeyCombo("Control+Home"))).toEqual(["moveToBeginningOfDocument"]);
    expect(editingCommands(parseKeyCombo("Ctrl+A"))).toEqual(["selectAll"]);
    expect(editingCommands(parseKeyCombo("Ctrl+a"))).toEqual(["selectAll"]);
  });

  it("leaves every other combination to the renderer's own bindings", () => {
    for (const k of ["Home", "End", "Ctrl+End", "Shift+Home", "Ctrl+Shift+Home", "Ctrl+Shift+ArrowLeft", "Alt+Home", "A", "Shift+A", "Ctrl+Alt+Home", "Meta+Home", "Enter"]) {
      expect(editingCommands(parseKeyCombo(k)), k).toEqual([]);
    }
  });
});
