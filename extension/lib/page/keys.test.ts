import { describe, expect, it } from "vitest";
import { charKey, parseKeyCombo } from "./keys";

const mods = (s = "") => ({
  ctrl: s.includes("c"),
  shift: s.includes("s"),
  alt: s.includes("a"),
  meta: s.includes("m"),
});

describe("parseKeyCombo", () => {
  it.each([
    ["Enter", "Enter", "Enter", 13, "", "\r"],
    ["Return", "Enter", "Enter", 13, "", "\r"],
    ["Escape", "Escape", "Escape", 27, "", ""],
    ["Esc", "Escape", "Escape", 27, "", ""],
    ["ArrowDown", "ArrowDown", "ArrowDown", 40, "", ""],
    ["Tab", "Tab", "Tab", 9, "", ""],
    ["Shift+Tab", "Tab", "Tab", 9, "s", ""],
    ["a", "a", "KeyA", 65, "", "a"],
    ["A", "A", "KeyA", 65, "s", "A"],
    ["Ctrl+A", "a", "KeyA", 65, "c", ""],
    ["ctrl+a", "a", "KeyA", 65, "c", ""],
    ["Control+Shift+K", "K", "KeyK", 75, "cs", ""],
    ["Meta+Enter", "Enter", "Enter", 13, "m", ""],
    ["Cmd+Shift+P", "P", "KeyP", 80, "sm", ""],
    ["Alt+F4", "F4", "F4", 115, "a", ""],
    ["Space", " ", "Space", 32, "", " "],
    ["1", "1", "Digit1", 49, "", "1"],
    ["!", "!", "Digit1", 49, "s", "!"],
    ["/", "/", "Slash", 191, "", "/"],
    ["Ctrl++", "+", "Equal", 187, "cs", ""],
    ["+", "+", "Equal", 187, "s", "+"],
    ["Shift", "Shift", "ShiftLeft", 16, "s", ""],
    ["PageDown", "PageDown", "PageDown", 34, "", ""],
    ["Backspace", "Backspace", "Backspace", 8, "", ""],
  ])("%s", (input, key, code, keyCode, m, text) => {
    expect(parseKeyCombo(input)).toEqual({ key, code, keyCode, modifiers: mods(m), text });
  });

  it("rejects unknown keys and modifiers with a helpful message", () => {
    expect(() => parseKeyCombo("Hyper+A")).toThrow(/"Hyper" in key "Hyper\+A" is not a modifier/);
    expect(() => parseKeyCombo("Foo")).toThrow(/unknown key "Foo"/);
    expect(() => parseKeyCombo("")).toThrow(/no key given/);
  });
});

describe("charKey", () => {
  it("maps characters to keys with implied Shift", () => {
    expect(charKey("Z")).toMatchObject({ key: "Z", code: "KeyZ", modifiers: mods("s") });
    expect(charKey("?")).toMatchObject({ key: "?", code: "Slash", modifiers: mods("s") });
    expect(charKey("é")).toMatchObject({ key: "é", code: "", keyCode: 0, text: "é" });
    expect(charKey("\n")).toMatchObject({ key: "Enter", text: "\r" });
  });
});
