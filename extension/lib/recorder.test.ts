import { describe, expect, it } from "vitest";
import type { Recording } from "./protocol.gen";
import { addStep, dropStep, markParam, paramName, Recorder, renameParam, stepInWords, withParams, type RecorderPort, type RecordingState } from "./recorder";

/** A fake Chrome: session and local storage in memory, what was told to pages and badges. */
function fakePort(actingAt: number[] = []) {
  const calls: string[] = [];
  const mem: { session?: RecordingState; recordings: unknown } = { recordings: [] };
  const port: RecorderPort = {
    load: async () => (mem.session ? structuredClone(mem.session) : undefined),
    store: async (s) => {
      mem.session = s ? structuredClone(s) : undefined;
    },
    listen: async (tabId, on) => void calls.push(`listen ${tabId} ${on}`),
    badge: async (tabId, on) => void calls.push(`badge ${tabId} ${on}`),
    acting: (_tabId, at) => actingAt.includes(at),
    loadRecordings: async () => structuredClone(mem.recordings),
    storeRecordings: async (list) => {
      mem.recordings = structuredClone(list);
    },
    now: () => new Date("2026-12-04T10:00:00Z"),
  };
  return { port, calls, mem };
}

const email = { role: "textbox", name: "Email address" };
const pw = { role: "textbox", name: "Password" };

describe("the recorder (service worker side)", () => {
  it("records one tab's steps from the start page, coalescing typing, and saves them named with parameters", async () => {
    const { port, calls } = fakePort();
    const r = new Recorder(port);
    await r.start(7, "https://shop.example/login?next=1#top");
    expect(calls).toEqual(["listen 7 true", "badge 7 true"]);
    for (const v of ["a", "ab", "ab@x.org"]) await r.step(7, "", { action: "type", target: email, value: v }, 1);
    await r.step(7, "", { action: "type", target: pw, secret: true }, 2);
    // The top frame's step: no frame, whatever the page said.
    await r.step(7, "", { action: "click", target: { role: "button", name: "Sign in", frame: "https://evil.example/" } }, 3);
    // Another tab's content script, and a step with an action a page may not report: ignored.
    expect(await r.step(8, "", { action: "click", target: { role: "button", name: "x" } }, 4)).toBe(false);
    expect(await r.step(7, "", { action: "navigate", value: "https://evil.example/" }, 4)).toBe(false);
    // The person types an address mid-flow; a link's navigation is no step (its click is).
    expect(await r.committed({ tabId: 7, frameId: 0, url: "https://shop.example/cart#x", timeStamp: 5, transitionType: "typed" })).toBe(true);
    expect(await r.committed({ tabId: 7, frameId: 0, url: "https://shop.example/next", timeStamp: 6, transitionType: "link" })).toBe(false);
    // Each new top document shows the badge again (Chrome resets a tab's own badge on navigation).
    expect(calls.filter((c) => c === "badge 7 true").length).toBe(3);
    // A frame's step carries the frame's address, whatever the page said.
    await r.step(7, "https://pay.example/card", { action: "type", target: { role: "textbox", name: "Name on card", frame: "lie" }, value: "A B" }, 7);

    const stopped = await r.stop();
    expect(calls.slice(-2)).toEqual(["badge 7 false", "listen 7 false"]);
    expect(stopped?.params).toEqual([{ name: "email_address", example: "ab@x.org" }, { name: "password", secret: true }, { name: "name_on_card", example: "A B" }]);
    expect(stopped?.steps).toEqual([
      { action: "navigate", value: "https://shop.example/login?next=1" },
      { action: "type", target: email, param: "email_address" },
      { action: "type", target: pw, param: "password", secret: true },
      { action: "click", target: { role: "button", name: "Sign in" } },
      { action: "navigate", value: "https://shop.example/cart" },
      { action: "type", target: { role: "textbox", name: "Name on card", frame: "https://pay.example/card" }, param: "name_on_card" },
    ]);
    // Stopped: nothing more is kept.
    expect(await r.step(7, "", { action: "click", target: { role: "button", name: "late" } }, 9)).toBe(false);
    // The session holds the draft across a worker restart.
    const again = new Recorder(port);
    expect((await again.current())?.stopped).toBe(true);
    await expect(again.start(7, "https://x.example/")).rejects.toThrow(/no name yet/);
  });

  it("saves under a new name with renamed parameters; refuses a taken name or none", async () => {
    const { port, mem } = fakePort();
    mem.recordings = [{ name: "Taken", site: "", created: "", steps: [{ action: "click" }] }];
    const r = new Recorder(port);
    await r.start(1, "http://127.0.0.1:8080/form.html");
    await r.step(1, "", { action: "type", target: email, value: "me@x.org" }, 1);
    await r.stop();
    expect(await r.saveAs("  ", "")).toBe("A recording needs a name.");
    expect(await r.saveAs("Taken", "")).toMatch(/already exists/);
    expect(await r.saveAs("Sign up", "", { email_address: "bad name!" })).toMatch(/cannot name a parameter/);
    const rec = await r.saveAs("Sign up", "  Fills the form  ", { email_address: "email" });
    expect(rec).toEqual({
      name: "Sign up",
      description: "Fills the form",
      site: "http://127.0.0.1:8080",
      created: "2026-12-04T10:00:00.000Z",
      params: [{ name: "email", example: "me@x.org" }],
      steps: [
        { action: "navigate", value: "http://127.0.0.1:8080/form.html" },
        { action: "type", target: email, param: "email" },
      ],
    });
    expect((mem.recordings as Recording[]).map((x) => x.name)).toEqual(["Taken", "Sign up"]);
    expect(mem.session).toBeUndefined();
    expect(await r.saveAs("Again", "")).toMatch(/no stopped recording/);
  });

  it("refuses a second recording while one is under way or unnamed; discard forgets it", async () => {
    const { port, calls } = fakePort();
    const r = new Recorder(port);
    await r.start(1, "https://a.example/");
    await expect(r.start(2, "https://b.example/")).rejects.toThrow(/Another tab is being recorded/);
    await r.stop();
    await expect(r.start(2, "https://b.example/")).rejects.toThrow(/no name yet/);
    await r.discard();
    expect(await r.current()).toBeUndefined();
    await r.start(2, "https://b.example/");
    await r.discard();
    expect(calls.slice(-2)).toEqual(["badge 2 false", "listen 2 false"]);
    expect(await r.recordingTab()).toBeUndefined();
  });

  it("never keeps monkbrowse's own input, a secret's value or a ref from the page", async () => {
    const { port, mem } = fakePort([5]);
    const r = new Recorder(port);
    await r.start(3, "https://a.example/");
    expect(await r.step(3, "", { action: "click", target: { role: "button", name: "AI's" } }, 5)).toBe(false);
    expect(await r.committed({ tabId: 3, frameId: 0, url: "https://a.example/x", timeStamp: 5, transitionType: "typed" })).toBe(false);
    await r.step(3, "", { action: "type", target: { ...pw, ref: "e5" }, secret: true, value: "hunter22", param: "x" }, 6);
    expect(JSON.stringify(mem.session)).not.toContain("hunter22");
    expect(mem.session?.steps[1]).toEqual({ action: "type", target: pw, secret: true });
    // A tab closed while recording: stopped, kept for its name.
    await r.tabGone(3);
    expect(mem.session?.stopped).toBe(true);
  });

  it("choosing an option drops the clicks and filter typing that led to it", () => {
    const fruit = { role: "combobox", name: "Fruit" };
    let steps = addStep([], { action: "click", target: { role: "button", name: "Go" } });
    steps = addStep(steps, { action: "click", target: fruit });
    steps = addStep(steps, { action: "type", target: fruit, value: "Ban" });
    steps = addStep(steps, { action: "select", target: fruit, value: "Banana" });
    steps = addStep(steps, { action: "select", target: fruit, value: "Banana" });
    expect(steps).toEqual([
      { action: "click", target: { role: "button", name: "Go" } },
      { action: "select", target: fruit, value: "Banana" },
    ]);
    // Typing into another field after a field is a new step; back in the first, another.
    steps = addStep(steps, { action: "type", target: email, value: "a" });
    steps = addStep(steps, { action: "type", target: { ...email, nth: 1 }, value: "b" });
    steps = addStep(steps, { action: "type", target: email, value: "c" });
    expect(steps.length).toBe(5);
  });

  it("names parameters from labels, unique", () => {
    expect(paramName("E-mail address:", new Set())).toBe("e_mail_address");
    expect(paramName("Name", new Set(["name", "name_2"]))).toBe("name_3");
    expect(paramName("", new Set())).toBe("text");
    expect(paramName("Prénom", new Set())).toBe("prenom");
    const { params } = withParams([
      { action: "type", target: { role: "textbox", name: "Name" }, value: "A" },
      { action: "type", target: { role: "textbox", name: "Name", nth: 1 }, value: "B" },
    ]);
    expect(params.map((p) => p.name)).toEqual(["name", "name_2"]);
  });

  it("edits: rename a parameter, drop a step, mark a value as a parameter; in words", () => {
    const rec: Recording = {
      name: "r",
      site: "",
      created: "",
      params: [{ name: "email", example: "a@b.c" }],
      steps: [
        { action: "type", target: email, param: "email" },
        { action: "select", target: { role: "combobox", name: "Size" }, value: "Medium" },
        { action: "press", value: "Enter" },
        { action: "type", target: { role: "textbox", name: "Note" }, value: "hi {{email}}" },
      ],
    };
    const renamed = renameParam(rec, "email", "mail") as Recording;
    expect(renamed.params).toEqual([{ name: "mail", example: "a@b.c" }]);
    expect(renamed.steps[0]?.param).toBe("mail");
    expect(renamed.steps[3]?.value).toBe("hi {{mail}}");
    expect(renameParam(rec, "nope", "x")).toMatch(/no parameter/);
    const marked = markParam(rec, 1) as Recording;
    expect(marked.steps[1]).toEqual({ action: "select", target: { role: "combobox", name: "Size" }, param: "size" });
    expect(marked.params?.[1]).toEqual({ name: "size", example: "Medium" });
    expect(markParam(rec, 2)).toMatch(/Only a typed or chosen value/);
    expect(markParam(marked, 1)).toMatch(/already/);
    const dropped = dropStep(dropStep(rec, 0) as Recording, 2) as Recording;
    expect(dropped.steps.map((s) => s.action)).toEqual(["select", "press"]);
    expect(dropped.params).toBeUndefined();
    expect(dropStep(rec, 9)).toMatch(/no such step/);
    expect(stepInWords(rec.steps[0]!)).toBe('Type {{email}} into textbox "Email address"');
    expect(stepInWords({ action: "type", target: pw, secret: true, param: "password" })).toBe('You enter a secret (password) into textbox "Password"');
    expect(stepInWords({ action: "click", target: { role: "button", name: "Edit", nth: 1, near: "Bob", frame: "https://f.example/p" } })).toBe(
      'Click button "Edit" (#2) near "Bob" in frame https://f.example/p',
    );
  });
});
