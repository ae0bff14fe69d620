import { afterEach, describe, expect, it, vi } from "vitest";
import { getText } from "./text";
import { RefRegistry } from "./refs";
import { isSecretField, maskSecretsIn, secretBoxes, watchSecrets } from "./secret";
import { buildSnapshot } from "./snapshot";

describe("secret fields", () => {
  it("masks password and one-time-code values in snapshots and get_text", () => {
    document.body.innerHTML = `
      <label>Password <input id="pw" type="password"></label>
      <label>Code <input id="otp" autocomplete="one-time-code"></label>
      <label>Name <input id="name"></label>`;
    (document.getElementById("pw") as HTMLInputElement).value = "hunter2";
    (document.getElementById("otp") as HTMLInputElement).value = "493021";
    (document.getElementById("name") as HTMLInputElement).value = "Ada";
    const refs = new RefRegistry();
    const snap = buildSnapshot(document, refs);
    expect(snap).not.toContain("hunter2");
    expect(snap).not.toContain("493021");
    expect(snap).toContain("•••••••");
    expect(snap).toContain("••••••");
    expect(snap).toContain("Ada");
    const line = (name: string) => snap.split("\n").find((l) => l.includes(`"${name}"`)) ?? "";
    const refOf = (name: string) => /\[ref=(e\d+)\]/.exec(line(name))?.[1] ?? "";
    expect(getText(refs, document, { ref: refOf("Code") }).text).toBe("••••••");
    expect(getText(refs, document, { ref: refOf("Password") }).text).toBe("•••••••");
    expect(getText(refs, document, { ref: refOf("Name") }).text).toBe("Ada");
    expect(isSecretField(document.getElementById("name")!)).toBe(false);
  });
});

describe("isSecretField: each field kind", () => {
  const kinds: [string, string][] = [
    ["type=password", `<input id="f" type="password">`],
    ["autocomplete current-password", `<input id="f" autocomplete="current-password">`],
    ["autocomplete new-password (with a section token)", `<input id="f" autocomplete="section-signup new-password">`],
    ["autocomplete one-time-code", `<input id="f" autocomplete="one-time-code">`],
    ["autocomplete cc-number", `<input id="f" autocomplete="cc-number">`],
    ["autocomplete cc-csc", `<input id="f" autocomplete="billing cc-csc">`],
    ["a box of a one-character OTP group", `<div><input id="f" maxlength="1"><input maxlength="1"><input maxlength="1"><input maxlength="1"></div>`],
  ];
  for (const [name, html] of kinds) {
    it(`masks ${name} in a snapshot and get_text`, () => {
      document.body.innerHTML = `<label>Secret ${html}</label>`;
      const f = document.getElementById("f") as HTMLInputElement;
      f.value = "s3cr3tvalue";
      expect(isSecretField(f)).toBe(true);
      const refs = new RefRegistry();
      const snap = buildSnapshot(document, refs);
      expect(snap).not.toContain("s3cr3tvalue");
      const ref = /textbox[^\n]*\[ref=(e\d+)\]/.exec(snap)?.[1] ?? "";
      expect(getText(refs, document, { ref }).text).not.toContain("s3cr3tvalue");
    });
  }

  afterEach(() => vi.restoreAllMocks());

  // happy-dom drops -webkit-text-security from styles; Chromium computes it
  // (the e2e TestMasking checks the real one). Here the computed style says it.
  it("masks a field shown masked by -webkit-text-security in a snapshot and get_text", () => {
    document.body.innerHTML = `<label>PIN <input id="f" class="dots"></label>`;
    const f = document.getElementById("f") as HTMLInputElement;
    f.value = "s3cr3tvalue";
    const real = window.getComputedStyle.bind(window);
    vi.spyOn(window, "getComputedStyle").mockImplementation((el: Element, pseudo?: string | null) => {
      const cs = real(el, pseudo);
      if (el !== f) return cs;
      return new Proxy(cs, {
        get: (t, k) => (k === "getPropertyValue" ? (p: string) => (p === "-webkit-text-security" ? "disc" : t.getPropertyValue(p)) : Reflect.get(t, k)),
      });
    });
    expect(isSecretField(f)).toBe(true);
    const refs = new RefRegistry();
    const snap = buildSnapshot(document, refs);
    expect(snap).not.toContain("s3cr3tvalue");
    const ref = /textbox[^\n]*\[ref=(e\d+)\]/.exec(snap)?.[1] ?? "";
    expect(getText(refs, document, { ref }).text).not.toContain("s3cr3tvalue");
  });

  it("masks the digits of an OTP group in the names the boxes take from their label", () => {
    document.body.innerHTML = `<label>Code <input maxlength="1"><input maxlength="1"><input maxlength="1"><input maxlength="1"></label>`;
    document.querySelectorAll<HTMLInputElement>("input").forEach((el, i) => (el.value = String(7 - i)));
    const snap = buildSnapshot(document, new RefRegistry());
    expect(snap).toContain("textbox");
    expect(snap.replace(/\[ref=e\d+\]/g, "")).not.toMatch(/[4-7]/);
  });

  it("leaves ordinary fields alone: a text box, cc-name, two one-character boxes, text-security none", () => {
    document.body.innerHTML = `
      <input id="a"><input id="b" autocomplete="cc-name"><input id="c" style="-webkit-text-security: none">
      <div><input id="d" maxlength="1"><input maxlength="1"></div>`;
    for (const id of ["a", "b", "c", "d"]) expect(isSecretField(document.getElementById(id)!), id).toBe(false);
  });

  it("masks secret values quoted in text (console lines), OTP groups by their joined value", () => {
    document.body.innerHTML = `
      <input id="pw" type="password"><input id="name">
      <div><input maxlength="1"><input maxlength="1"><input maxlength="1"><input maxlength="1"></div>`;
    (document.getElementById("pw") as HTMLInputElement).value = "hunter2";
    (document.getElementById("name") as HTMLInputElement).value = "Ada";
    document.querySelectorAll<HTMLInputElement>("div input").forEach((el, i) => (el.value = String(4 + i)));
    const out = maskSecretsIn(document, "pw=hunter2 name=Ada code=4567");
    expect(out).toBe("pw=••••••• name=Ada code=••••");
  });
});

describe("secret is sticky (issue 40)", () => {
  it("a password field shown as text by the page stays masked in snapshots and get_text", () => {
    document.body.innerHTML = `<label>Password <input id="pw" type="password"></label>`;
    const pw = document.getElementById("pw") as HTMLInputElement;
    const refs = new RefRegistry();
    buildSnapshot(document, refs); // seen once, as a password field
    pw.value = "Sticky-s3cret";
    pw.type = "text"; // the page's "Show password"
    const snap = buildSnapshot(document, refs);
    expect(snap).not.toContain("Sticky-s3cret");
    expect(snap).toContain("•••");
    expect(isSecretField(pw)).toBe(true);
  });

  it("watchSecrets catches a field switched to text before anything asked about it", async () => {
    const stop = watchSecrets(document);
    try {
      const f = document.createElement("input");
      f.type = "password";
      document.body.append(f);
      f.type = "text"; // in the same task: the observer's record keeps the old type
      const a = document.createElement("input");
      a.setAttribute("autocomplete", "cc-number");
      document.body.append(a);
      a.setAttribute("autocomplete", "off");
      await Promise.resolve(); // the observer's microtask
      await new Promise<void>((r) => queueMicrotask(r));
      expect(isSecretField(f)).toBe(true);
      expect(isSecretField(a)).toBe(true);
      const plain = document.createElement("input");
      document.body.append(plain);
      plain.type = "search";
      await new Promise<void>((r) => queueMicrotask(r));
      expect(isSecretField(plain)).toBe(false);
    } finally {
      stop();
    }
  });

  it("card expiry fields are secret", () => {
    document.body.innerHTML = `<input id="e" autocomplete="cc-exp"><input id="m" autocomplete="billing cc-exp-month"><input id="y" autocomplete="cc-exp-year">`;
    for (const id of ["e", "m", "y"]) expect(isSecretField(document.getElementById(id)!)).toBe(true);
  });
});

describe("secretBoxes: what screenshots paint over (issue 40)", () => {
  const at = (el: Element, x: number, y: number, width: number, height: number) => {
    el.getBoundingClientRect = () => ({ x, y, left: x, top: y, width, height, right: x + width, bottom: y + height, toJSON: () => ({}) }) as DOMRect;
  };

  it("answers the boxes of secret fields in view, a shown password and a closed shadow root's included", () => {
    document.body.innerHTML = `<input id="pw" type="password"><input id="name"><input id="card" autocomplete="cc-number"><input id="far" type="password"><div id="host"></div>`;
    const pw = document.getElementById("pw") as HTMLInputElement;
    isSecretField(pw);
    pw.type = "text"; // shown by the page: still painted over
    at(pw, 10, 20, 200, 30);
    at(document.getElementById("name")!, 10, 60, 200, 30);
    at(document.getElementById("card")!, 10, 100, 200, 30);
    at(document.getElementById("far")!, 10, 5000, 200, 30); // out of view
    const host = document.getElementById("host")!;
    const root = host.attachShadow({ mode: "closed" });
    root.innerHTML = `<input type="password">`;
    at(root.querySelector("input")!, 300, 20, 100, 30);
    const boxes = secretBoxes(document, (el) => (el === host ? root : null));
    expect(boxes).toEqual([
      { x: 10, y: 20, width: 200, height: 30 },
      { x: 10, y: 100, width: 200, height: 30 },
      { x: 300, y: 20, width: 100, height: 30 },
    ]);
  });
});

describe("watchSecrets in shadow roots (issue 40)", () => {
  it("watches a custom element's closed shadow root: a password field there switched to text stays secret", async () => {
    document.body.innerHTML = `<login-box id="box"></login-box>`;
    const box = document.getElementById("box")!;
    const root = box.attachShadow({ mode: "closed" });
    root.innerHTML = `<input type="text" id="seen-later">`;
    const stop = watchSecrets(document, (el) => (el === box ? root : null));
    // An observer made after the watcher's is told after it, in the same
    // delivery: once it hears of the type switch, the watcher has had its turn.
    const heard = new Promise<void>((r) => {
      const mo = new MutationObserver((records) => {
        if (!records.some((m) => m.attributeName === "type")) return;
        mo.disconnect();
        r();
      });
      mo.observe(root, { subtree: true, childList: true, attributes: true });
    });
    try {
      const pw = document.createElement("input");
      pw.type = "password";
      root.append(pw);
      pw.type = "text";
      await heard;
      expect(isSecretField(pw)).toBe(true);
      expect(isSecretField(root.getElementById("seen-later")!)).toBe(false);
    } finally {
      stop();
    }
  });
});
