import { describe, expect, it } from "vitest";
import { Executor, type BrowserPort } from "./executor";

const stored = [
  {
    name: "Sign up",
    site: "https://shop.test",
    created: "2026-12-04T22:00:00Z",
    params: [{ name: "email", example: "ada@example.com" }, { name: "password", secret: true, example: "hunter2" }],
    steps: [
      { action: "type", target: { role: "textbox", name: "Email" }, param: "email" },
      { action: "type", target: { role: "textbox", name: "Password" }, param: "password", secret: true, value: "hunter2" },
      { action: "click", target: { role: "button", name: "Sign up" } },
    ],
  },
  { name: "Other", site: "", created: "", steps: [{ action: "navigate", value: "https://x.test/" }] },
];

/** A port with two tabs, 10 shared and 11 not, and the stored recordings. */
function port(): BrowserPort {
  const tab = (id: number) => ({ id, windowId: 1, url: "https://shop.test/", title: "Shop", active: id === 10 });
  const p: Partial<BrowserPort> = {
    getShares: async () => ({ "10": 1 }),
    getTab: async (id) => (id === 10 || id === 11 ? tab(id) : undefined),
    activeTab: async () => tab(11),
    recordings: async () => stored,
  };
  return p as BrowserPort;
}

describe("recordings (wire)", () => {
  it("answers only through a shared tab", async () => {
    const x = new Executor(port());
    await expect(x.execute("recordings", { tabId: 11 })).rejects.toThrow("tab 11 is not shared");
    // No tab given and the active tab is not shared: refused as well.
    await expect(x.execute("recordings", {})).rejects.toThrow("not shared");
  });

  it("lists, reads one and exports, never with a secret's value", async () => {
    const x = new Executor(port());
    const all = await x.execute("recordings", { tabId: 10 });
    expect(all).toMatchObject({ tabId: 10, recordings: [{ name: "Sign up" }, { name: "Other" }] });
    expect(JSON.stringify(all)).not.toContain("hunter2");
    const one = await x.execute("recordings", { tabId: 10, name: "Sign up" });
    expect(one).toMatchObject({ recordings: [{ name: "Sign up" }] });
    expect("export" in one).toBe(false);
    const none = await x.execute("recordings", { tabId: 10, name: "Nope" });
    expect(none).toEqual({ tabId: 10, recordings: [] });
    const ex = (await x.execute("recordings", { tabId: 10, name: "Sign up", format: "playwright" })) as { export?: string };
    expect(ex.export).toContain(`getByRole("textbox", { name: "Email", exact: true }).fill(email)`);
    expect(ex.export).toContain(`secret("PASSWORD")`);
    expect(JSON.stringify(ex)).not.toContain("hunter2");
    await expect(x.execute("recordings", { tabId: 10, name: "Sign up", format: "cypress" })).rejects.toThrow("format must be");
  });
});
