// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ConsoleBuffer } from "./console";
import type { CsOps } from "../messages";
import { handleOp, respond, type PageContext, type PageOp } from "./handler";
import { RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";

let ctx: PageContext;
const refOf = (sel: string) => ctx.refs.refFor(document.querySelector(sel)!);
const op = <K extends PageOp>(name: K, args: CsOps[K]["args"]) => handleOp(ctx, name, args);

/** Records the types of events reaching el (capture on document so nothing is missed). */
function recordEvents(types: string[]): string[] {
  const seen: string[] = [];
  for (const t of types) {
    document.addEventListener(t, (e) => seen.push(`${e.type}@${(e.target as Element).id || (e.target as Element).localName}`), true);
  }
  return seen;
}

beforeEach(() => {
  document.body.innerHTML = "";
  ctx = { doc: document, refs: new RefRegistry(), logs: new ConsoleBuffer() };
});

describe("refs", () => {
  it("answers the contract's stale and unknown ref errors", async () => {
    document.body.innerHTML = `<button id="b">Go</button>`;
    const ref = refOf("#b");
    document.getElementById("b")!.remove();
    expect(await respond(ctx, { cs: true, op: "click", args: { ref } })).toEqual({
      ok: false,
      error: `ref ${ref} is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it`,
    });
    expect(await respond(ctx, { cs: true, op: "click", args: { ref: "e99" } })).toEqual({
      ok: false,
      error: "ref e99 was not found on this page; take a new browser_snapshot and use a ref from it",
    });
    const bad = await respond(ctx, { cs: true, op: "click", args: { ref: "button" } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/is not a ref \(refs look like e12\)/);
  });

  it("accepts a ref pasted with its brackets", async () => {
    document.body.innerHTML = `<button id="b">Go</button>`;
    const onClick = vi.fn();
    document.getElementById("b")!.addEventListener("click", onClick);
    await op("click", { ref: `[ref=${refOf("#b")}]` });
    expect(onClick).toHaveBeenCalledTimes(1);
  });

  it("types each op's args from the one table (tsc checks these lines)", () => {
    const typeChecks = () => {
      // @ts-expect-error: click takes a ref, not a startRef
      void op("click", { startRef: "e1" });
      // @ts-expect-error: no such op
      void op("fly", {});
    };
    expect(typeChecks).toBeTypeOf("function");
  });

  it("rejects unknown ops", async () => {
    expect(await respond(ctx, { cs: true, op: "fly", args: {} })).toEqual({ ok: false, error: 'unknown content-script op "fly"' });
  });
});

describe("click", () => {
  it("fires the pointer/mouse sequence, focuses, and runs default actions", async () => {
    document.body.innerHTML = `<form id="f"><input type="checkbox" id="c"><button id="b">Go</button></form>`;
    const seen = recordEvents(["pointerdown", "mousedown", "focus", "pointerup", "mouseup", "click", "mouseover"]);
    await op("click", { ref: refOf("#c") });
    expect((document.getElementById("c") as HTMLInputElement).checked).toBe(true);
    expect(seen).toEqual(["mouseover@c", "pointerdown@c", "mousedown@c", "focus@c", "pointerup@c", "mouseup@c", "click@c"]);

    const submitted = vi.fn((e: Event) => e.preventDefault());
    document.getElementById("f")!.addEventListener("submit", submitted);
    await op("click", { ref: refOf("#b") });
    expect(submitted).toHaveBeenCalledTimes(1);
  });

  it("refuses a disabled element", async () => {
    document.body.innerHTML = `<button id="b" disabled>Continue</button>`;
    const r = await respond(ctx, { cs: true, op: "click", args: { ref: refOf("#b") } });
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/^ref e1 \(button "Continue"\) is disabled/) });
  });

  it("chooses an <option> instead of clicking it", async () => {
    document.body.innerHTML = `<select id="s"><option>A</option><option id="o">B</option></select>`;
    const change = vi.fn();
    document.getElementById("s")!.addEventListener("change", change);
    await op("click", { ref: refOf("#o") });
    expect((document.getElementById("s") as HTMLSelectElement).value).toBe("B");
    expect(change).toHaveBeenCalledTimes(1);
  });
});

describe("hover", () => {
  it("fires over/enter/move and later leave events", async () => {
    document.body.innerHTML = `<div id="a" tabindex="0">A</div><div id="b" tabindex="0">B</div>`;
    const seen = recordEvents(["mouseover", "mouseenter", "mousemove", "mouseout", "mouseleave", "pointerenter"]);
    await op("hover", { ref: refOf("#a") });
    await op("hover", { ref: refOf("#b") });
    expect(seen).toEqual([
      "pointerenter@a", "mouseover@a", "mouseenter@a", "mousemove@a",
      "mouseout@a", "mouseleave@a",
      "pointerenter@b", "mouseover@b", "mouseenter@b", "mousemove@b",
    ]);
  });
});

describe("type", () => {
  it("replaces an input's value key by key, with input and change events", async () => {
    document.body.innerHTML = `<input id="i" value="old">`;
    const el = document.getElementById("i") as HTMLInputElement;
    const inputs: string[] = [];
    el.addEventListener("input", () => inputs.push(el.value));
    const keys: string[] = [];
    el.addEventListener("keydown", (e) => keys.push(e.key));
    const change = vi.fn();
    el.addEventListener("change", change);
    await op("type", { ref: refOf("#i"), text: "Hi!" });
    expect(el.value).toBe("Hi!");
    expect(inputs).toEqual(["", "H", "Hi", "Hi!"]);
    expect(keys).toEqual(["H", "i", "!"]);
    expect(change).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(el);
  });

  it("skips a character whose keydown was cancelled, and respects maxlength", async () => {
    document.body.innerHTML = `<input id="i" maxlength="4">`;
    const el = document.getElementById("i") as HTMLInputElement;
    el.addEventListener("keydown", (e) => {
      if (e.key === "x") e.preventDefault();
    });
    await op("type", { ref: refOf("#i"), text: "axbcdef" });
    expect(el.value).toBe("abcd");
  });

  it("types into a textarea with newlines", async () => {
    document.body.innerHTML = `<textarea id="t"></textarea>`;
    await op("type", { ref: refOf("#t"), text: "a\nb" });
    expect((document.getElementById("t") as HTMLTextAreaElement).value).toBe("a\nb");
  });

  it("sets number and date fields at once and explains a rejected value", async () => {
    document.body.innerHTML = `<input id="n" type="number"><input id="d" type="date">`;
    await op("type", { ref: refOf("#n"), text: "-5" });
    expect((document.getElementById("n") as HTMLInputElement).value).toBe("-5");
    const r = await respond(ctx, { cs: true, op: "type", args: { ref: refOf("#d"), text: "tomorrow" } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/yyyy-mm-dd/);
  });

  it("types into a contenteditable", async () => {
    document.body.innerHTML = `<div id="e" contenteditable="true">old</div>`;
    const el = document.getElementById("e")!;
    const input = vi.fn();
    el.addEventListener("input", input);
    await op("type", { ref: refOf("#e"), text: "new text" });
    expect(el.textContent).toBe("new text");
    expect(input).toHaveBeenCalled();
  });

  it("contenteditable: an editor that handles beforeinput itself gets it first, and the DOM is left to it", async () => {
    document.body.innerHTML = `<div id="e" contenteditable="true">old</div>`;
    const el = document.getElementById("e")!;
    const seen: string[] = [];
    el.addEventListener("beforeinput", (e) => {
      const ie = e as InputEvent;
      seen.push(`${ie.inputType}:${ie.data ?? ""}:${ie.cancelable}`);
      e.preventDefault();
      if (ie.inputType === "insertText") el.textContent = `[${ie.data}]`; // the editor's own model
    });
    await op("type", { ref: refOf("#e"), text: "hello" });
    expect(seen).toEqual(["insertText:hello:true"]);
    expect(el.textContent).toBe("[hello]");
    await op("press_key", { key: "Backspace" });
    expect(seen).toEqual(["insertText:hello:true", "deleteContentBackward::true"]);
    expect(el.textContent).toBe("[hello]");
  });

  it("submit: the Enter comes after the page's scheduled re-render of the last input (Preact-like)", async () => {
    document.body.innerHTML = `<input id="q">`;
    const el = document.getElementById("q") as HTMLInputElement;
    let draft = "";
    let sent = "";
    el.addEventListener("input", () => {
      const v = el.value;
      void Promise.resolve().then(() => Promise.resolve()).then(() => (draft = v)); // a render two microtasks later
    });
    el.addEventListener("keydown", (e) => {
      if (e.key === "Enter") sent = draft;
    });
    await op("type", { ref: refOf("#q"), text: "ship it", submit: true });
    expect(sent).toBe("ship it");
  });

  it("follows a label to its control and refuses a button", async () => {
    document.body.innerHTML = `<label id="l">Name <input id="i"></label><button id="b">Go</button>`;
    await op("type", { ref: refOf("#l"), text: "Ada" });
    expect((document.getElementById("i") as HTMLInputElement).value).toBe("Ada");
    const r = await respond(ctx, { cs: true, op: "type", args: { ref: refOf("#b"), text: "x" } });
    expect(!r.ok && r.error).toMatch(/does not take text/);
  });

  it("submit: true presses Enter, which submits the form through its default button", async () => {
    document.body.innerHTML = `<form id="f"><input id="q"><button id="go">Search</button></form>`;
    const seen: string[] = [];
    const f = document.getElementById("f")!;
    document.getElementById("go")!.addEventListener("click", () => seen.push("click"));
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      seen.push("submit");
    });
    document.getElementById("q")!.addEventListener("keydown", (e) => seen.push(`keydown:${e.key}`));
    await op("type", { ref: refOf("#q"), text: "x", submit: true });
    expect(seen).toEqual(["keydown:x", "keydown:Enter", "click", "submit"]);
  });

  it("Enter does not submit when the keydown was cancelled", async () => {
    document.body.innerHTML = `<form id="f"><input id="q"></form>`;
    const submit = vi.fn((e: Event) => e.preventDefault());
    document.getElementById("f")!.addEventListener("submit", submit);
    document.getElementById("q")!.addEventListener("keydown", (e) => {
      if (e.key === "Enter") e.preventDefault();
    });
    await op("type", { ref: refOf("#q"), text: "x", submit: true });
    expect(submit).not.toHaveBeenCalled();
  });
});

describe("select", () => {
  it("selects by value or label and fires input and change", async () => {
    document.body.innerHTML = `<select id="s"><option value="r">Red</option><option value="g">Green</option></select>`;
    const events: string[] = [];
    const s = document.getElementById("s")!;
    s.addEventListener("input", () => events.push("input"));
    s.addEventListener("change", () => events.push("change"));
    expect(await op("select", { ref: refOf("#s"), values: ["Green"] })).toEqual({ selected: ["g"] });
    expect(await op("select", { ref: refOf("#s"), values: ["r"] })).toEqual({ selected: ["r"] });
    expect(events).toEqual(["input", "change", "input", "change"]);
  });

  it("selects several in a multiple select", async () => {
    document.body.innerHTML = `<select id="s" multiple><option>a</option><option>b</option><option>c</option></select>`;
    expect(await op("select", { ref: refOf("#s"), values: ["a", "c"] })).toEqual({ selected: ["a", "c"] });
  });

  it("lists the options when a value matches none", async () => {
    document.body.innerHTML = `<select id="s"><option value="r">Red</option><option value="g">Green</option></select>`;
    const r = await respond(ctx, { cs: true, op: "select", args: { ref: refOf("#s"), values: ["Blue"] } });
    expect(r).toEqual({ ok: false, error: 'no option matches "Blue"; the options are: "r" (Red), "g" (Green)' });
  });
});

describe("press_key", () => {
  it("dispatches keydown/keypress/keyup with modifiers on the focused element", async () => {
    document.body.innerHTML = `<input id="i">`;
    const el = document.getElementById("i") as HTMLInputElement;
    el.focus();
    const seen: string[] = [];
    for (const t of ["keydown", "keypress", "keyup"]) {
      el.addEventListener(t, (e) => {
        const k = e as KeyboardEvent;
        seen.push(`${t}:${k.key}:${k.code}:${k.ctrlKey ? "C" : ""}${k.shiftKey ? "S" : ""}`);
      });
    }
    await op("press_key", { key: "Control+Shift+K" });
    expect(seen).toEqual([
      "keydown:Control:ControlLeft:C",
      "keydown:Shift:ShiftLeft:CS",
      "keydown:K:KeyK:CS",
      "keyup:K:KeyK:CS",
      "keyup:Shift:ShiftLeft:C",
      "keyup:Control:ControlLeft:",
    ]);
  });

  it("inserts printable characters, deletes with Backspace, selects all with Ctrl+A", async () => {
    document.body.innerHTML = `<input id="i">`;
    const el = document.getElementById("i") as HTMLInputElement;
    el.focus();
    await op("press_key", { key: "a" });
    await op("press_key", { key: "B" });
    expect(el.value).toBe("aB");
    await op("press_key", { key: "Backspace" });
    expect(el.value).toBe("a");
    await op("press_key", { key: "Ctrl+A" });
    expect([el.selectionStart, el.selectionEnd]).toEqual([0, 1]);
    await op("press_key", { key: "Delete" });
    expect(el.value).toBe("");
  });

  it("moves focus with Tab and Shift+Tab", async () => {
    document.body.innerHTML = `<input id="a"><button id="b">B</button><a id="c" href="#">C</a><button id="d" disabled>D</button>`;
    (document.getElementById("a") as HTMLElement).focus();
    await op("press_key", { key: "Tab" });
    expect(document.activeElement?.id).toBe("b");
    await op("press_key", { key: "Tab" });
    expect(document.activeElement?.id).toBe("c");
    await op("press_key", { key: "Tab" });
    expect(document.activeElement?.id).toBe("a");
    await op("press_key", { key: "Shift+Tab" });
    expect(document.activeElement?.id).toBe("c");
  });

  it("submits a single-field form without a button on Enter", async () => {
    document.body.innerHTML = `<form id="f"><input id="q"></form>`;
    const submit = vi.fn((e: Event) => e.preventDefault());
    document.getElementById("f")!.addEventListener("submit", submit);
    (document.getElementById("q") as HTMLElement).focus();
    await op("press_key", { key: "Enter" });
    expect(submit).toHaveBeenCalledTimes(1);
  });

  it("reports a bad key", async () => {
    const r = await respond(ctx, { cs: true, op: "press_key", args: { key: "Ctrl+Nope" } });
    expect(!r.ok && r.error).toMatch(/unknown key "Nope"/);
  });
});

describe("drag", () => {
  it("fires the HTML5 sequence with one shared DataTransfer, plus mouse events", async () => {
    document.body.innerHTML = `<div id="src" draggable="true">Item</div><div id="dst" tabindex="0">Bin</div>`;
    const seen: string[] = [];
    const transfers = new Set<unknown>();
    for (const t of ["mousedown", "dragstart", "drag", "dragenter", "dragover", "drop", "dragend", "mouseup"]) {
      document.addEventListener(t, (e) => {
        seen.push(`${t}@${(e.target as Element).id}`);
        if ("dataTransfer" in e && (e as DragEvent).dataTransfer) transfers.add((e as DragEvent).dataTransfer);
      });
    }
    const src = document.getElementById("src")!;
    const dst = document.getElementById("dst")!;
    src.addEventListener("dragstart", (e) => e.dataTransfer?.setData("text/plain", "item-1"));
    dst.addEventListener("dragover", (e) => e.preventDefault());
    let dropped = "";
    dst.addEventListener("drop", (e) => {
      dropped = e.dataTransfer?.getData("text/plain") ?? "";
    });
    await op("drag", { startRef: refOf("#src"), endRef: refOf("#dst") });
    // While over the source itself the drag visits it too (as in a browser); the rest in order.
    const main = seen.filter((x) => !/^drag(enter|over|leave)?@src$/.test(x)).filter((x, i, l) => x !== l[i - 1]);
    expect(main).toEqual(["mousedown@src", "dragstart@src", "dragenter@dst", "dragover@dst", "drop@dst", "dragend@src", "mouseup@dst"]);
    expect(seen).toContain("drag@src");
    expect(transfers.size).toBe(1);
    expect(dropped).toBe("item-1");
  });

  it("drives pointer-event libraries when the source is not draggable: press, moves past a threshold, release", async () => {
    document.body.innerHTML = `<div id="src">Card</div><div id="dst">Column</div>`;
    const seen: string[] = [];
    let down: { x: number; y: number } | null = null;
    let activated = false;
    document.addEventListener("pointerdown", (e) => {
      down = { x: e.clientX, y: e.clientY };
      seen.push("pointerdown");
    });
    document.addEventListener("pointermove", (e) => {
      if (down && e.buttons === 1 && Math.hypot(e.clientX - down.x, e.clientY - down.y) >= 8 && !activated) {
        activated = true;
        seen.push("activated");
      }
    });
    document.addEventListener("pointerup", () => seen.push("pointerup"));
    document.addEventListener("dragstart", () => seen.push("dragstart"));
    await op("drag", { startRef: refOf("#src"), endRef: refOf("#dst") });
    expect(seen).toEqual(["pointerdown", "activated", "pointerup"]);
  });

  it("lets the page run between the drag's phases", async () => {
    document.body.innerHTML = `<div id="src" draggable="true">Item</div><div id="dst">Bin</div>`;
    const dst = document.getElementById("dst")!;
    // Like SortableJS: accepts drops only once its next-tick start ran.
    let started = false;
    document.getElementById("src")!.addEventListener("dragstart", () => {
      setTimeout(() => (started = true), 0);
    });
    dst.addEventListener("dragover", (e) => {
      if (started) e.preventDefault();
    });
    const drop = vi.fn();
    dst.addEventListener("drop", drop);
    await op("drag", { startRef: refOf("#src"), endRef: refOf("#dst") });
    expect(drop).toHaveBeenCalledTimes(1);
  });

  it("does not drop where dragover was not accepted", async () => {
    document.body.innerHTML = `<div id="src" draggable="true">Item</div><div id="dst">Bin</div>`;
    const drop = vi.fn();
    document.getElementById("dst")!.addEventListener("drop", drop);
    await op("drag", { startRef: refOf("#src"), endRef: refOf("#dst") });
    expect(drop).not.toHaveBeenCalled();
  });
});

describe("upload", () => {
  it("puts a decoded File into a file input through DataTransfer", async () => {
    document.body.innerHTML = `<input type="file" id="f">`;
    const el = document.getElementById("f") as HTMLInputElement;
    const change = vi.fn();
    el.addEventListener("change", change);
    await op("upload", { ref: refOf("#f"), name: "notes.txt", data: btoa("hello") });
    expect(el.files?.length).toBe(1);
    const file = el.files![0]!;
    expect(file.name).toBe("notes.txt");
    expect(file.type).toBe("text/plain");
    expect(await file.text()).toBe("hello");
    expect(change).toHaveBeenCalledTimes(1);
  });

  it("finds the hidden file input behind an upload button", async () => {
    document.body.innerHTML = `<div><button id="b">Upload</button><input type="file" id="f" hidden></div>`;
    await op("upload", { ref: refOf("#b"), name: "a.png", data: btoa("x") });
    expect((document.getElementById("f") as HTMLInputElement).files?.[0]?.type).toBe("image/png");
  });

  it("refuses an element with no file input near it, and bad base64", async () => {
    document.body.innerHTML = `<section><p><button id="b">Go</button></p></section><input type="file" id="f">`;
    const r = await respond(ctx, { cs: true, op: "upload", args: { ref: refOf("#b"), name: "a", data: "" } });
    expect(!r.ok && r.error).toMatch(/is not a file input/);
    const r2 = await respond(ctx, { cs: true, op: "upload", args: { ref: refOf("#f"), name: "a", data: "!!!" } });
    expect(!r2.ok && r2.error).toBe("the file data is not valid base64");
  });
});

describe("get_text and scroll", () => {
  it("returns the text of a ref or the page", async () => {
    document.body.innerHTML = `<p id="p">Hello <b>there</b></p><input id="i" value="v">`;
    expect(await op("get_text", { ref: refOf("#p") })).toEqual({ text: "Hello there" });
    expect(await op("get_text", { ref: refOf("#i") })).toEqual({ text: "v" });
    expect((await op("get_text", {})).text).toContain("Hello there");
  });

  it("scrolls a scrollable container by an amount, and validates direction", async () => {
    document.body.innerHTML = `<div id="box" style="overflow:auto;height:100px"><div style="height:1000px">tall</div></div>`;
    const box = document.getElementById("box")!;
    Object.defineProperty(box, "scrollHeight", { value: 1000 });
    Object.defineProperty(box, "clientHeight", { value: 100 });
    const by = vi.fn();
    box.scrollBy = by as unknown as typeof box.scrollBy;
    await op("scroll", { ref: refOf("#box"), direction: "down", amount: 300 });
    expect(by).toHaveBeenCalledWith({ top: 300, behavior: "instant" });
    const r = await respond(ctx, { cs: true, op: "scroll", args: { direction: "sideways" } });
    expect(!r.ok && r.error).toMatch(/not one of up, down, left, right/);
  });
});

describe("snapshot op", () => {
  it("answers {snapshot} with the same refs actions accept", async () => {
    document.body.innerHTML = `<button id="b">Go</button>`;
    const r = await op("snapshot", {});
    expect(r.snapshot).toBe('- button "Go" [ref=e1]');
    expect(buildSnapshot(document, ctx.refs)).toBe(r.snapshot);
  });
});
