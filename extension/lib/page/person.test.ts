import { describe, expect, it } from "vitest";
import { personEdit, pointedAt } from "./person";
import { RefRegistry } from "./refs";

/** happy-dom cannot make trusted events: an event as the browser would give it. */
function trusted(type: string, target: Element, button = 0): Event {
  return { type, isTrusted: true, target, button, composedPath: () => [target] } as unknown as Event;
}

describe("the person's edits in the page", () => {
  it("names the field typed into and the button clicked, never a value; ignores untrusted events", () => {
    document.body.innerHTML = `<label for=n>Notes</label><textarea id=n></textarea>
      <label for=p>Password</label><input id=p type=password>
      <button id=s>Save</button><p id=t>plain <b id=b>text</b></p>`;
    const refs = new RefRegistry();
    const n = document.getElementById("n") as HTMLTextAreaElement;
    n.value = "call the bank";
    const p = document.getElementById("p") as HTMLInputElement;
    p.value = "Pa"; // a value that is also the start of the field's own name
    expect(personEdit(trusted("input", n), refs)).toEqual({ kind: "typed", role: "textbox", name: "Notes", ref: refs.refFor(n) });
    const pw = personEdit(trusted("input", p), refs);
    expect(pw).toEqual({ kind: "typed", role: "textbox", name: "Password", ref: refs.refFor(p) });
    expect(JSON.stringify(pw)).not.toContain("call the bank");
    expect(personEdit(trusted("click", document.getElementById("s") as Element), refs)).toMatchObject({ kind: "clicked", role: "button", name: "Save" });
    // A click on plain text, a right button, a focus click into a field: not edits.
    expect(personEdit(trusted("click", document.getElementById("b") as Element), refs)).toBeNull();
    expect(personEdit(trusted("click", document.getElementById("s") as Element, 2), refs)).toBeNull();
    expect(personEdit(trusted("click", n), refs)).toBeNull();
    // What a page script dispatches is untrusted.
    expect(personEdit(new Event("input"), refs)).toBeNull();
    // In a frame whose refs its parent gives: no ref.
    expect(personEdit(trusted("input", n), null)).toEqual({ kind: "typed", role: "textbox", name: "Notes" });
  });

  it("points at the element holding the selection with its ancestors' refs, or the right-clicked one; never a secret field's text", () => {
    document.body.innerHTML = `<main id=m><p id=t>The quick brown fox</p><input id=p type=password value=hunter22></main>`;
    const refs = new RefRegistry();
    const t = document.getElementById("t") as HTMLElement;
    expect(pointedAt(document, null, refs)).toBeNull();
    const r = document.createRange();
    r.setStart(t.firstChild as Node, 4);
    r.setEnd(t.firstChild as Node, 9);
    document.getSelection()?.removeAllRanges();
    document.getSelection()?.addRange(r);
    const got = pointedAt(document, null, refs);
    expect(got?.refs).toEqual([refs.refFor(t), refs.refFor(document.getElementById("m") as Element)]);
    expect(got?.role).toBe("paragraph");
    expect(got?.text).toBe("quick");
    document.getSelection()?.removeAllRanges();
    const pw = pointedAt(document, document.getElementById("p"), refs);
    expect(pw?.refs[0]).toBe(refs.refFor(document.getElementById("p") as Element));
    expect(pw?.text).toBe("");
    expect(JSON.stringify(pw)).not.toContain("hunter22");
  });
});
