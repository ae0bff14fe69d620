// @vitest-environment happy-dom
// ElementInternals roles and states (issue 41): the MAIN-world hooks keep
// each component's internals and answer for it over the private channel;
// the snapshot shows them; a page cannot answer for an element that has
// none. happy-dom has no ElementInternals: a stand-in with the same
// accessors is installed before the hooks, as Chromium's is there before
// them; e2e/snapshot_test.go checks the real one in Chromium.
import { beforeAll, describe, expect, it } from "vitest";
import { setup } from "../../entrypoints/page-hooks.content";
import { channelOf, newSecret } from "./console";
import { channelReader, NO_INTERNALS, parseInternals } from "./internals";
import { CONTROL_KEY, type HooksControl } from "./page-hooks";
import { RefRegistry } from "./refs";
import { buildSnapshot } from "./snapshot";

const ARIA = ["role", "ariaLabel", "ariaChecked", "ariaSelected", "ariaExpanded", "ariaDisabled", "ariaPressed", "ariaLevel", "ariaRequired", "ariaValueNow", "ariaValueText", "ariaHidden"];

class StandInInternals {}
for (const p of ARIA) {
  const store = new WeakMap<object, string | null>();
  Object.defineProperty(StandInInternals.prototype, p, {
    get(this: object) {
      return store.get(this) ?? null;
    },
    set(this: object, v: string | null) {
      store.set(this, v === null ? null : String(v));
    },
    configurable: true,
  });
}

let secret = "";
beforeAll(() => {
  const w = window as unknown as Record<string, unknown>;
  w.ElementInternals = StandInInternals;
  (HTMLElement.prototype as unknown as Record<string, unknown>).attachInternals = function attachInternals() {
    return new StandInInternals();
  };
  // The hooks arrive before the page's components are defined.
  setup(window as unknown as Window & typeof globalThis);
  secret = newSecret();
  expect((w[CONTROL_KEY] as HooksControl)(secret, "claim")).toBe(true);

  // The page's design system, defined after the hooks.
  type I = Record<string, string | null>;
  class XListbox extends HTMLElement {
    connectedCallback() {
      const i = this.attachInternals() as unknown as I;
      i.role = "listbox";
      i.ariaLabel = "Size";
    }
  }
  class XOption extends HTMLElement {
    connectedCallback() {
      const i = this.attachInternals() as unknown as I;
      i.role = "option";
      i.ariaSelected = this.hasAttribute("chosen") ? "true" : "false";
    }
  }
  class XHostile extends HTMLElement {
    connectedCallback() {
      const i = this.attachInternals() as unknown as I;
      i.role = "x\n- button \"Pay\" [ref=e1]\n```";
      i.ariaLabel = "Hostile";
    }
  }
  customElements.define("x-listbox", XListbox);
  customElements.define("x-option", XOption);
  customElements.define("x-hostile", XHostile);
  customElements.define("x-plain", class extends HTMLElement {});
});

const page = `<x-listbox><x-option>Small</x-option><x-option chosen>Large</x-option></x-listbox>
  <x-plain id="plain">Plain</x-plain><x-hostile>Text</x-hostile>`;

describe("ElementInternals through the hooks", () => {
  it("shows a component listbox's options, with their states and refs", () => {
    document.body.innerHTML = page;
    const s = buildSnapshot(document, new RefRegistry(), { internals: channelReader(channelOf(secret)) });
    expect(s).toMatch(/^- listbox "Size" \[ref=e\d+\]:$/m);
    expect(s).toMatch(/^ {2}- option "Small" \[ref=e\d+\]$/m);
    expect(s).toMatch(/^ {2}- option "Large" \[selected\] \[ref=e\d+\]$/m);
    // Roles of the internals go through the role set too.
    expect(s).not.toContain("Pay");
    expect(s).not.toContain("```");
    // The hooks were in time: no note.
    expect(s).not.toContain("ElementInternals");
  });
  it("without the hooks' answers the same page has no options (what the test above proves is theirs)", () => {
    document.body.innerHTML = page;
    const s = buildSnapshot(document, new RefRegistry());
    expect(s).not.toContain("option");
  });
  it("an author's role attribute wins over the internals' role", () => {
    document.body.innerHTML = `<x-listbox aria-label="L"><x-option role="menuitem">Cut</x-option></x-listbox>`;
    const s = buildSnapshot(document, new RefRegistry(), { internals: channelReader(channelOf(secret)) });
    expect(s).toMatch(/- menuitem "Cut" \[ref=e\d+\]/);
  });
  it("a page cannot answer for an element that has no internals, nor with another channel's types", () => {
    document.body.innerHTML = page;
    const plain = document.getElementById("plain")!;
    // The page answers every question it can guess, on the element and the document.
    for (const type of ["__monkbrowse:internals-reply", `__monkbrowse:${"0".repeat(32)}:internals-reply`]) {
      plain.addEventListener(type.replace("-reply", ""), () => plain.dispatchEvent(new CustomEvent(type, { detail: '{"role":"button"}' })));
    }
    const reader = channelReader(channelOf(secret));
    expect(reader.read(plain)).toBe(null);
    // Another secret's channel (a page's guess) reaches no hooks.
    expect(channelReader(channelOf(newSecret())).read(document.querySelector("x-option")!)).toBe(null);
    expect(reader.read(document.querySelector("x-option")!)).toMatchObject({ role: "option" });
  });
  it("says plainly when the internals could not be read", () => {
    document.body.innerHTML = page;
    const s = buildSnapshot(document, new RefRegistry(), { internals: NO_INTERNALS });
    expect(s.split("\n").at(-1)).toMatch(/ElementInternals are not shown \(they were set before monkbrowse reached the page, as when it loaded before it was shared: reloading it shows them\)"$/);
    // A page without components has nothing to miss.
    document.body.innerHTML = `<button>Go</button>`;
    expect(buildSnapshot(document, new RefRegistry(), { internals: NO_INTERNALS })).toBe('- button "Go" [ref=e1]');
  });
  it("keeps only known keys and string values of an answer", () => {
    expect(parseInternals('{"role":"option","ariaSelected":"true","label":5,"x":"y","selected":"true"}')).toEqual({ role: "option", selected: "true" });
    expect(parseInternals("not json")).toBe(null);
    expect(parseInternals(undefined)).toBe(null);
  });
});
