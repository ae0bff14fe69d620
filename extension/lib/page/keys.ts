// Key names and combos ("Enter", "Ctrl+A", "Control+Shift+K", "Meta+Enter",
// "Shift+Tab", "a") parsed into what a KeyboardEvent carries.

import { PageError } from "./refs";

export interface Modifiers {
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  meta: boolean;
}

export interface KeyPress {
  /** KeyboardEvent.key, e.g. "Enter", "a", "A", "ArrowDown". */
  key: string;
  /** KeyboardEvent.code, e.g. "Enter", "KeyA", "ArrowDown" ("" when unknown). */
  code: string;
  /** Legacy keyCode (and which). */
  keyCode: number;
  modifiers: Modifiers;
  /** The character typed (for keypress and text insertion), "" for non-printing keys. */
  text: string;
}

const MODIFIER_ALIASES: Record<string, keyof Modifiers> = {
  ctrl: "ctrl", control: "ctrl", ctl: "ctrl",
  shift: "shift",
  alt: "alt", option: "alt", opt: "alt",
  meta: "meta", cmd: "meta", command: "meta", super: "meta", win: "meta", windows: "meta", os: "meta",
};

/** Modifier key names as KeyboardEvent.key spells them, for pressing a modifier alone. */
const MODIFIER_KEYS: Record<keyof Modifiers, [string, string, number]> = {
  ctrl: ["Control", "ControlLeft", 17],
  shift: ["Shift", "ShiftLeft", 16],
  alt: ["Alt", "AltLeft", 18],
  meta: ["Meta", "MetaLeft", 91],
};

/** Named keys: lower-cased alias → [key, code, keyCode, text]. */
const NAMED: Record<string, [string, string, number, string]> = {
  enter: ["Enter", "Enter", 13, "\r"],
  return: ["Enter", "Enter", 13, "\r"],
  tab: ["Tab", "Tab", 9, ""],
  escape: ["Escape", "Escape", 27, ""],
  esc: ["Escape", "Escape", 27, ""],
  backspace: ["Backspace", "Backspace", 8, ""],
  delete: ["Delete", "Delete", 46, ""],
  del: ["Delete", "Delete", 46, ""],
  insert: ["Insert", "Insert", 45, ""],
  space: [" ", "Space", 32, " "],
  spacebar: [" ", "Space", 32, " "],
  arrowup: ["ArrowUp", "ArrowUp", 38, ""],
  up: ["ArrowUp", "ArrowUp", 38, ""],
  arrowdown: ["ArrowDown", "ArrowDown", 40, ""],
  down: ["ArrowDown", "ArrowDown", 40, ""],
  arrowleft: ["ArrowLeft", "ArrowLeft", 37, ""],
  left: ["ArrowLeft", "ArrowLeft", 37, ""],
  arrowright: ["ArrowRight", "ArrowRight", 39, ""],
  right: ["ArrowRight", "ArrowRight", 39, ""],
  home: ["Home", "Home", 36, ""],
  end: ["End", "End", 35, ""],
  pageup: ["PageUp", "PageUp", 33, ""],
  pagedown: ["PageDown", "PageDown", 34, ""],
  capslock: ["CapsLock", "CapsLock", 20, ""],
  contextmenu: ["ContextMenu", "ContextMenu", 93, ""],
  plus: ["+", "Equal", 187, "+"],
  minus: ["-", "Minus", 189, "-"],
};
for (let i = 1; i <= 24; i++) NAMED[`f${i}`] = [`F${i}`, `F${i}`, 111 + i, ""];

/** Punctuation: char → [code, keyCode, shifted?]. US layout. */
const PUNCT: Record<string, [string, number, boolean]> = {
  "-": ["Minus", 189, false], "_": ["Minus", 189, true],
  "=": ["Equal", 187, false], "+": ["Equal", 187, true],
  "[": ["BracketLeft", 219, false], "{": ["BracketLeft", 219, true],
  "]": ["BracketRight", 221, false], "}": ["BracketRight", 221, true],
  "\\": ["Backslash", 220, false], "|": ["Backslash", 220, true],
  ";": ["Semicolon", 186, false], ":": ["Semicolon", 186, true],
  "'": ["Quote", 222, false], "\"": ["Quote", 222, true],
  ",": ["Comma", 188, false], "<": ["Comma", 188, true],
  ".": ["Period", 190, false], ">": ["Period", 190, true],
  "/": ["Slash", 191, false], "?": ["Slash", 191, true],
  "`": ["Backquote", 192, false], "~": ["Backquote", 192, true],
  " ": ["Space", 32, false],
};
const SHIFTED_DIGITS = ")!@#$%^&*(";

/** The KeyPress for one character typed as text (no modifiers beyond the Shift it implies). */
export function charKey(ch: string): KeyPress {
  const mods: Modifiers = { ctrl: false, shift: false, alt: false, meta: false };
  if (ch === "\n" || ch === "\r") return { key: "Enter", code: "Enter", keyCode: 13, modifiers: mods, text: "\r" };
  if (ch === "\t") return { key: "Tab", code: "Tab", keyCode: 9, modifiers: mods, text: "" };
  if (/^[a-z]$/.test(ch)) return { key: ch, code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0), modifiers: mods, text: ch };
  if (/^[A-Z]$/.test(ch)) return { key: ch, code: `Key${ch}`, keyCode: ch.charCodeAt(0), modifiers: { ...mods, shift: true }, text: ch };
  if (/^[0-9]$/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), modifiers: mods, text: ch };
  const sd = SHIFTED_DIGITS.indexOf(ch);
  if (sd >= 0) return { key: ch, code: `Digit${sd}`, keyCode: 48 + sd, modifiers: { ...mods, shift: true }, text: ch };
  const p = PUNCT[ch];
  if (p) return { key: ch, code: p[0], keyCode: p[1], modifiers: { ...mods, shift: p[2] }, text: ch };
  // Any other character (accented letters, CJK, emoji): no physical key.
  return { key: ch, code: "", keyCode: 0, modifiers: mods, text: ch };
}

/**
 * Parses "Ctrl+Shift+K", "Meta+Enter", "Shift+Tab", "Escape", "a", "Ctrl++".
 * Modifier names are case-insensitive (Ctrl/Control, Alt/Option, Meta/Cmd/Command, Shift).
 * Throws a PageError naming the part it did not understand.
 */
export function parseKeyCombo(input: string): KeyPress {
  if (typeof input !== "string" || input.length === 0) {
    throw new PageError('no key given; pass a key like "Enter", "Escape", "ArrowDown", "a" or a combo like "Ctrl+A"');
  }
  // Split on "+" but keep a literal "+" key ("+", "Ctrl++", "Shift+Plus").
  const parts: string[] = [];
  let rest = input.trim() === "" ? input : input.trim();
  if (rest === "+") parts.push("+");
  else {
    if (rest.endsWith("++")) {
      parts.push(...rest.slice(0, -2).split("+"), "+");
    } else {
      parts.push(...rest.split("+"));
    }
  }
  rest = "";
  const mods: Modifiers = { ctrl: false, shift: false, alt: false, meta: false };
  const keyPart = parts.pop()!;
  for (const raw of parts) {
    const m = MODIFIER_ALIASES[raw.trim().toLowerCase()];
    if (!m) {
      throw new PageError(
        `"${raw}" in key "${input}" is not a modifier; use Ctrl, Shift, Alt or Meta (e.g. "Ctrl+Shift+K")`,
      );
    }
    mods[m] = true;
  }
  const name = keyPart === " " ? " " : keyPart.trim();
  if (name === "") throw new PageError(`key "${input}" ends with "+" but names no key; e.g. "Ctrl+A"`);

  const lower = name.toLowerCase();
  const alone = MODIFIER_ALIASES[lower];
  if (alone) {
    const [key, code, keyCode] = MODIFIER_KEYS[alone];
    mods[alone] = true;
    return { key, code, keyCode, modifiers: mods, text: "" };
  }
  const named = NAMED[lower];
  if (named) {
    const [key, code, keyCode, text] = named;
    return { key, code, keyCode, modifiers: mods, text: printable(text, mods) };
  }
  if ([...name].length === 1) {
    const k = charKey(name);
    let key = k.key;
    if (/^[a-z]$/i.test(key)) {
      // "A" alone types a capital A (with Shift); "Ctrl+A" is the shortcut on the a key.
      const upper = mods.shift || (/^[A-Z]$/.test(name) && !mods.ctrl && !mods.alt && !mods.meta);
      if (upper) mods.shift = true;
      key = upper ? key.toUpperCase() : key.toLowerCase();
    }
    const merged: Modifiers = {
      ctrl: mods.ctrl, alt: mods.alt, meta: mods.meta,
      shift: mods.shift || (k.modifiers.shift && !/^[a-z]$/i.test(name)),
    };
    return { key, code: k.code, keyCode: k.keyCode, modifiers: merged, text: printable(key, merged) };
  }
  throw new PageError(
    `unknown key "${name}" in "${input}"; use a single character or one of Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, F1–F12, with modifiers like "Ctrl+A" or "Shift+Tab"`,
  );
}

/** Text a key inserts: none when Ctrl, Alt or Meta is held (those are shortcuts). */
function printable(text: string, mods: Modifiers): string {
  if (mods.ctrl || mods.meta || mods.alt) return "";
  return text;
}
