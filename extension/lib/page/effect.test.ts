// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from "vitest";
import { ConsoleBuffer } from "./console";
import { handleOp, type PageContext } from "./handler";
import { RefRegistry } from "./refs";
import { invisibleReason } from "./effect";

// happy-dom lays nothing out (every box is 0×0): the tests give the elements
// that a person sees a box of their own.
function showAt(el: Element, left: number, top: number, width = 100, height = 20): void {
  Object.defineProperty(el, "getBoundingClientRect", {
    configurable: true,
    value: () => ({ left, top, width, height, right: left + width, bottom: top + height, x: left, y: top, toJSON: () => ({}) }),
  });
}

let ctx: PageContext;
const el = (sel: string) => document.querySelector(sel)!;

beforeEach(() => {
  document.body.innerHTML = "";
  ctx = { doc: document, refs: new RefRegistry(), logs: new ConsoleBuffer() };
});

// The markup of rc-select (Ant Design's Select): zero-size role=option copies beside a visible role-less list.
function twinPage(): { clicks: string[] } {
  document.body.innerHTML = `
    <div role="listbox" id="copies"><div role="option" id="copy" aria-label="Banana">banana</div><div role="option" id="lone">Durian</div></div>
    <div id="list"><div class="item" id="apple" style="cursor: pointer"><div>Apple</div></div><div class="item" id="banana" style="cursor: pointer"><div>Banana</div></div></div>`;
  showAt(document.body, 0, 0, 800, 600);
  showAt(el("#list"), 0, 0, 200, 40);
  showAt(el("#apple"), 0, 0, 200, 20);
  showAt(el("#apple > div"), 0, 0, 200, 20);
  showAt(el("#banana"), 0, 20, 200, 20);
  showAt(el("#banana > div"), 0, 20, 200, 20);
  const clicks: string[] = [];
  for (const item of document.querySelectorAll(".item")) {
    item.addEventListener("click", () => {
      clicks.push(item.id);
      item.setAttribute("aria-current", "true");
    });
  }
  return { clicks };
}

describe("no false success", () => {
  it("tells zero-size and off-screen elements from visible ones", () => {
    twinPage();
    expect(invisibleReason(el("#copy"))).toMatch(/^zero-size/);
    expect(invisibleReason(el("#banana"))).toBeNull();
    showAt(el("#lone"), -10000, 0, 100, 20);
    expect(invisibleReason(el("#lone"))).toBe("off-screen");
  });

  it("refuses a click on an invisible copy with a visible twin, naming the twin's ref, and clicks nothing", async () => {
    const { clicks } = twinPage();
    const copy = ctx.refs.refFor(el("#copy"));
    const reached: string[] = [];
    el("#copy").addEventListener("click", () => reached.push("copy"));
    const err = await handleOp(ctx, "click", { ref: copy }).then(() => null, (e: Error) => e.message);
    const twin = ctx.refs.peek(el("#banana"));
    expect(twin).toBeDefined();
    expect(err).toContain("not visible");
    expect(err).toContain(`[ref=${twin}]: click that ref instead`);
    expect(reached).toEqual([]);
    await handleOp(ctx, "click", { ref: twin! });
    expect(clicks).toEqual(["banana"]);
  });

  it("reports a watched click with no effect, and passes one with an effect", async () => {
    twinPage();
    const lone = ctx.refs.refFor(el("#lone"));
    await expect(handleOp(ctx, "click", { ref: lone })).rejects.toThrow(/no effect.*not visible/);
    el("#lone").addEventListener("click", () => el("#lone").setAttribute("aria-selected", "true"));
    await expect(handleOp(ctx, "click", { ref: lone })).resolves.toEqual({});
  });

  it("clicks a hidden native control as before (its activation behaviour needs no listener)", async () => {
    document.body.innerHTML = `<label><input type="checkbox" id="c"> Remember me</label>`;
    await handleOp(ctx, "click", { ref: ctx.refs.refFor(el("#c")) });
    expect((el("#c") as HTMLInputElement).checked).toBe(true);
  });
});

describe("no false success in the debugger mode's real clicks (click_check, input, click_effect)", () => {
  it("refuses a copy with a visible twin before any input, as the DOM click does", async () => {
    twinPage();
    const err = await handleOp(ctx, "click_check", { ref: ctx.refs.refFor(el("#copy")) }).then(() => null, (e: Error) => e.message);
    expect(err).toContain("nothing was clicked");
    expect(err).toContain(`[ref=${ctx.refs.peek(el("#banana"))}]: click that ref instead`);
  });

  it("sends a debugger-mode click on a canvas's fallback content to the DOM click (no point reaches it)", async () => {
    document.body.innerHTML = `<canvas id="c" width="100" height="100"><button id="fb">Show or hide 2024</button></canvas><button id="out">Out</button>`;
    showAt(el("#c"), 0, 0, 100, 100);
    showAt(el("#out"), 0, 120);
    expect(await handleOp(ctx, "click_check", { ref: ctx.refs.refFor(el("#fb")) })).toEqual({ dom: true });
    // An element with a box of its own, or outside any canvas, gets its box as before.
    expect("dom" in (await handleOp(ctx, "click_check", { ref: ctx.refs.refFor(el("#out")) }))).toBe(false);
    showAt(el("#fb"), 10, 10);
    expect("dom" in (await handleOp(ctx, "click_check", { ref: ctx.refs.refFor(el("#fb")) }))).toBe(false);
  });

  it("reports a watched click that changed nothing, and passes one that did", async () => {
    twinPage();
    showAt(el("#lone"), 0, 100, 100, 20);
    const lone = ctx.refs.refFor(el("#lone"));
    const box = await handleOp(ctx, "click_check", { ref: lone });
    expect("visible" in box && box.visible).toEqual({ x: 0, y: 100, width: 100, height: 20 });
    // (the real input reaches nothing that listens)
    await expect(handleOp(ctx, "click_effect", { ref: lone })).rejects.toThrow(/no effect/);
    await handleOp(ctx, "click_check", { ref: lone });
    el("#lone").setAttribute("aria-selected", "true"); // what the real click did
    await expect(handleOp(ctx, "click_effect", { ref: lone })).resolves.toEqual({});
    // An unwatched click (a visible button) is not judged.
    document.body.insertAdjacentHTML("beforeend", `<button id="b">Go</button>`);
    showAt(el("#b"), 0, 200, 80, 20);
    const b = ctx.refs.refFor(el("#b"));
    await handleOp(ctx, "click_check", { ref: b });
    await expect(handleOp(ctx, "click_effect", { ref: b })).resolves.toEqual({});
  });

  it("refuses an invisible element whose place shows another element (the real click would land there)", async () => {
    twinPage();
    showAt(el("#lone"), 0, 0, 100, 20);
    (el("#lone") as HTMLElement).setAttribute("style", "opacity: 0");
    const realFromPoint = document.elementFromPoint;
    document.elementFromPoint = () => el("#apple > div");
    try {
      const err = await handleOp(ctx, "click_check", { ref: ctx.refs.refFor(el("#lone")) }).then(() => null, (e: Error) => e.message);
      expect(err).toMatch(/not visible on the page \(transparent.*would land on .*nothing was clicked/);
    } finally {
      document.elementFromPoint = realFromPoint;
    }
  });
});

describe("EditContext editors", () => {
  /** An EditContext as Chromium's: text and selection the browser updates, textupdate events for the editor. */
  class FakeEditContext extends EventTarget {
    text = "";
    selectionStart = 0;
    selectionEnd = 0;
    updateText(start: number, end: number, t: string): void {
      this.text = this.text.slice(0, start) + t + this.text.slice(end);
    }
    updateSelection(start: number, end: number): void {
      this.selectionStart = start;
      this.selectionEnd = end;
    }
  }

  it("take typed text and keys through their EditContext's textupdate events", async () => {
    document.body.innerHTML = `<div id="ed" role="textbox" aria-label="Draft" tabindex="0"></div>`;
    const ed = el("#ed") as HTMLElement & { editContext?: unknown };
    const ec = new FakeEditContext();
    ec.text = "old";
    ec.updateSelection(3, 3);
    ed.editContext = ec;
    // The editor's model, as the fixture's: changed only by textupdate.
    let model = "old";
    const updates: string[] = [];
    ec.addEventListener("textupdate", (e) => {
      const u = e as Event & { text: string; updateRangeStart: number; updateRangeEnd: number; selectionStart: number };
      updates.push(`${u.updateRangeStart}-${u.updateRangeEnd}:${u.text}`);
      model = model.slice(0, u.updateRangeStart) + u.text + model.slice(u.updateRangeEnd);
    });
    const ref = ctx.refs.refFor(ed);
    await handleOp(ctx, "type", { ref, text: "hi" });
    expect(model).toBe("hi");
    expect(updates).toEqual(["0-3:h", "1-1:i"]);
    expect(ec.text).toBe("hi");
    expect([ec.selectionStart, ec.selectionEnd]).toEqual([2, 2]);
    ed.focus();
    await handleOp(ctx, "press_key", { key: "!" });
    expect(model).toBe("hi!");
    await handleOp(ctx, "press_key", { key: "Backspace" });
    expect(model).toBe("hi");
    expect(updates.at(-1)).toBe("2-3:");
    // A cancelled beforeinput is the editor's refusal: no textupdate.
    ed.addEventListener("beforeinput", (e) => e.preventDefault(), { once: true });
    await handleOp(ctx, "press_key", { key: "x" });
    expect(model).toBe("hi");
    await handleOp(ctx, "type", { ref, text: "" });
    expect(model).toBe("");
    expect(ed.textContent).toBe("");
  });
});

describe("the unchanged note of keys and pointer input", () => {
  it("marks an action that changed nothing, and not one that moved the caret or typed", async () => {
    document.body.innerHTML = `<input id="f" value="abc"><p>text</p>`;
    const f = el("#f") as HTMLInputElement;
    expect(await handleOp(ctx, "press_key", { key: "F8" })).toEqual({ unchanged: true });
    f.focus();
    f.setSelectionRange(3, 3);
    // Only the caret moves: that is an effect.
    expect(await handleOp(ctx, "press_key", { key: "ArrowLeft" })).toEqual({});
    expect(f.selectionStart).toBe(2);
    expect(await handleOp(ctx, "press_key", { key: "x" })).toEqual({});
    expect(f.value).toBe("abxc");
    // A keydown the page cancels and answers with nothing.
    f.addEventListener("keydown", (e) => e.preventDefault());
    expect(await handleOp(ctx, "press_key", { key: "y" })).toEqual({ unchanged: true });
    expect(f.value).toBe("abxc");
  });

  it("never claims a canvas it cannot read is unchanged", async () => {
    document.body.innerHTML = `<canvas id="c" width="100" height="100"></canvas>`;
    const c = el("#c");
    c.getBoundingClientRect = () => ({ left: 0, top: 0, width: 100, height: 100, right: 100, bottom: 100, x: 0, y: 0, toJSON: () => ({}) }) as DOMRect;
    document.elementFromPoint = () => c;
    // happy-dom draws no canvas: its pixels cannot be read, so no verdict.
    const r = await handleOp(ctx, "click_xy", { x: 10, y: 10 });
    expect(r).toEqual({ target: "<canvas#c>" });
  });
});
