import { describe, expect, it } from "vitest";
import { RefRegistry } from "./refs";
import { describeTargets } from "./target";

describe("activity targets", () => {
  it("names each ref's element as the page does and flags secret fields", () => {
    document.body.innerHTML = `
      <button id="b" aria-label="Save draft">💾</button>
      <label>Password <input id="pw" type="password"></label>
      <label>Name <input id="name"></label>`;
    const refs = new RefRegistry();
    const b = refs.refFor(document.getElementById("b")!);
    const pw = refs.refFor(document.getElementById("pw")!);
    const name = refs.refFor(document.getElementById("name")!);
    const { targets } = describeTargets(refs, [b, pw, name, "e999"]);
    expect(targets).toEqual([
      { role: "button", name: "Save draft", secret: false },
      { role: "textbox", name: "Password", secret: true },
      { role: "textbox", name: "Name", secret: false },
      null,
    ]);
  });
});
