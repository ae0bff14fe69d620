import { describe, expect, it } from "vitest";
import { describeTarget, keyName, recordDocument, recordEvent } from "./recorder";

/** happy-dom cannot make trusted events: an event as the browser would give it. */
function trusted(type: string, target: Element, extra: Record<string, unknown> = {}): Event {
  return { type, isTrusted: true, target, button: 0, composedPath: () => [target], ...extra } as unknown as Event;
}
function key(target: Element, k: string, mods: Partial<Record<"ctrlKey" | "altKey" | "metaKey" | "shiftKey", boolean>> = {}): Event {
  return trusted("keydown", target, { key: k, ctrlKey: false, altKey: false, metaKey: false, shiftKey: false, isComposing: false, ...mods });
}
const $ = (id: string) => document.getElementById(id) as HTMLElement;

describe("recording the person's actions in the page", () => {
  it("typing is one type step with the field's value, named as the snapshot names it; untrusted events make none", () => {
    document.body.innerHTML = `<label for=e>Email</label><input id=e type=email><label for=n>Notes</label><textarea id=n></textarea>
      <div id=ed contenteditable=true aria-label=Editor><p id=inner>hello</p></div>`;
    ($("e") as HTMLInputElement).value = "a@example.com";
    expect(recordEvent(trusted("input", $("e")))).toEqual({ action: "type", target: { role: "textbox", name: "Email" }, value: "a@example.com" });
    ($("n") as HTMLTextAreaElement).value = "two\nlines";
    expect(recordEvent(trusted("input", $("n")))).toEqual({ action: "type", target: { role: "textbox", name: "Notes" }, value: "two\nlines" });
    const ed = recordEvent(trusted("input", $("inner")));
    expect(ed).toMatchObject({ action: "type", target: { role: "textbox", name: "Editor" } });
    expect(ed?.value).toContain("hello");
    const synthetic = new Event("input");
    $("e").dispatchEvent(synthetic);
    expect(recordEvent(synthetic)).toBeNull();
  });

  it("a secret field's typing is a secret step without its value, also once the page shows it as text", () => {
    document.body.innerHTML = `<label for=p>Password</label><input id=p type=password><label for=c>Code</label><input id=c autocomplete=one-time-code>`;
    const p = $("p") as HTMLInputElement;
    p.value = "hunter22-secret";
    const step = recordEvent(trusted("input", p));
    expect(step).toEqual({ action: "type", target: { role: "textbox", name: "Password" }, secret: true });
    // "Show password": the same field as type=text stays secret.
    p.type = "text";
    p.value = "hunter22-secret!";
    const shown = recordEvent(trusted("input", p));
    expect(shown).toEqual({ action: "type", target: { role: "textbox", name: "Password" }, secret: true });
    ($("c") as HTMLInputElement).value = "123456";
    expect(recordEvent(trusted("input", $("c")))).toMatchObject({ secret: true });
    expect(JSON.stringify([step, shown])).not.toContain("hunter22");
    // Keys in a secret field: only the named ones, never a "shortcut" that may be a character.
    expect(recordEvent(key(p, "ß", { altKey: true }))).toBeNull();
    expect(recordEvent(key(p, "Enter"))).toEqual({ action: "press", value: "Enter", target: { role: "textbox", name: "Password" } });
  });

  it("clicks on buttons and links are steps; clicks on text and into fields are not; boxes are check and uncheck", () => {
    document.body.innerHTML = `<button id=b><span id=bs>Save</span></button><a id=a href="#x">Help</a><p id=t>Just text</p>
      <label for=e>Email</label><input id=e><input id=c type=checkbox aria-label=Remember>
      <div id=s role=switch aria-checked=true aria-label=Dark tabindex=0></div><input id=r type=radio name=g aria-label=Small>`;
    expect(recordEvent(trusted("click", $("bs")))).toEqual({ action: "click", target: { role: "button", name: "Save" } });
    expect(recordEvent(trusted("click", $("a")))).toEqual({ action: "click", target: { role: "link", name: "Help" } });
    expect(recordEvent(trusted("click", $("t")))).toBeNull();
    expect(recordEvent(trusted("click", $("e")))).toBeNull();
    expect(recordEvent(trusted("click", $("bs"), { button: 2 }))).toBeNull();
    const c = $("c") as HTMLInputElement;
    c.checked = true; // a native box has toggled when its click is dispatched
    expect(recordEvent(trusted("click", c))).toEqual({ action: "check", target: { role: "checkbox", name: "Remember" } });
    c.checked = false;
    expect(recordEvent(trusted("click", c))?.action).toBe("uncheck");
    // An ARIA switch changes in the page's handler, after the recorder saw the click.
    expect(recordEvent(trusted("click", $("s")))).toEqual({ action: "uncheck", target: { role: "switch", name: "Dark" } });
    expect(recordEvent(trusted("click", $("r")))?.action).toBe("check");
  });

  it("a <select>'s change and a listbox option's click are select steps on the field", () => {
    document.body.innerHTML = `<label for=s>Size</label><select id=s><option>Small</option><option id=m>Medium</option></select>
      <label id=fl>Fruit</label><input id=f role=combobox aria-labelledby=fl aria-controls=lb aria-expanded=true>
      <div id=lb role=listbox><div id=o1 role=option>Apple</div><div id=o2 role=option><span id=o2s>Banana</span></div></div>`;
    ($("s") as HTMLSelectElement).selectedIndex = 1;
    expect(recordEvent(trusted("change", $("s")))).toEqual({ action: "select", target: { role: "combobox", name: "Size" }, value: "Medium" });
    expect(recordEvent(trusted("click", $("m")))).toBeNull();
    expect(recordEvent(trusted("click", $("o2s")))).toEqual({ action: "select", target: { role: "combobox", name: "Fruit" }, value: "Banana" });
    // An option's pointerup is the choice too (a list gone before its click).
    expect(recordEvent(trusted("pointerup", $("o1")))).toEqual({ action: "select", target: { role: "combobox", name: "Fruit" }, value: "Apple" });
    expect(recordEvent(trusted("pointerup", $("f")))).toBeNull();
    // Typing into the combobox to filter is typing (the worker drops it when an option is chosen).
    ($("f") as HTMLInputElement).value = "Ban";
    expect(recordEvent(trusted("input", $("f")))).toEqual({ action: "type", target: { role: "combobox", name: "Fruit" }, value: "Ban" });
    expect(recordEvent(trusted("click", $("f")))).toBeNull();
  });

  it("keys: Enter, Escape, Tab and shortcuts; plain text keys and lone modifiers are not steps", () => {
    document.body.innerHTML = `<label for=e>Email</label><input id=e>`;
    const e = $("e");
    expect(recordEvent(key(e, "Enter"))).toEqual({ action: "press", value: "Enter", target: { role: "textbox", name: "Email" } });
    expect(recordEvent(key(e, "Tab", { shiftKey: true }))?.value).toBe("Shift+Tab");
    expect(recordEvent(key(e, "a"))).toBeNull();
    expect(recordEvent(key(e, "A", { shiftKey: true }))).toBeNull();
    expect(recordEvent(key(e, "Control", { ctrlKey: true }))).toBeNull();
    expect(recordEvent(key(e, "s", { ctrlKey: true }))?.value).toBe("Control+S");
    expect(recordEvent(key(document.body, "Escape"))).toEqual({ action: "press", value: "Escape" });
    expect(keyName({ key: "k", ctrlKey: true, altKey: false, metaKey: true, shiftKey: true, isComposing: false } as KeyboardEvent, false)).toBe("Control+Meta+Shift+K");
    expect(keyName({ key: "Enter", ctrlKey: false, altKey: false, metaKey: false, shiftKey: false, isComposing: true } as KeyboardEvent, false)).toBeNull();
  });

  it("tells same-named elements apart by their order and nearby text", () => {
    document.body.innerHTML = `<ul><li>Alice <button id=b1>Edit</button></li><li>Bob <button id=b2>Edit</button></li></ul><button id=o>Other</button>`;
    expect(describeTarget($("b1"))).toEqual({ role: "button", name: "Edit", near: "Alice" });
    expect(describeTarget($("b2"))).toEqual({ role: "button", name: "Edit", nth: 1, near: "Bob" });
    expect(describeTarget($("o"))).toEqual({ role: "button", name: "Other" });
  });

  it("describes a field once while the person types in it; another step describes it afresh", () => {
    document.body.innerHTML = `<label for=e>Email</label><input id=e><button id=b>Go</button>`;
    const e = $("e") as HTMLInputElement;
    const typing = {};
    e.value = "a";
    expect(recordEvent(trusted("input", e), typing)).toEqual({ action: "type", target: { role: "textbox", name: "Email" }, value: "a" });
    // The page renames the field: the typing in progress keeps its name.
    $("e").previousElementSibling!.textContent = "Mail";
    e.value = "ab";
    expect(recordEvent(trusted("input", e), typing)).toEqual({ action: "type", target: { role: "textbox", name: "Email" }, value: "ab" });
    expect(recordEvent(trusted("input", e))).toMatchObject({ target: { name: "Mail" } });
  });

  it("listens only until stopped, and a failure to describe never reaches the page", () => {
    document.body.innerHTML = `<button id=b>Go</button>`;
    const steps: unknown[] = [];
    const fails: unknown[] = [];
    const stop = recordDocument(document, (s) => steps.push(s), (e) => fails.push(e));
    // happy-dom's own click is untrusted: nothing recorded.
    $("b").click();
    expect(steps).toEqual([]);
    stop();
    expect(fails).toEqual([]);
  });
});
