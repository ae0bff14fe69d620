// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { handleOp, type PageContext } from "./handler";
import { ConsoleBuffer } from "./console";
import { RefRegistry } from "./refs";

function ctxFor(doc: Document): PageContext {
  return { doc, refs: new RefRegistry(), logs: new ConsoleBuffer() };
}

describe("refs across documents", () => {
  // Regression: each document's registry started at e1, so a ref from the
  // previous page clicked whatever got e1 on the next one.
  it("a ref from an earlier document is unknown in the next one", async () => {
    document.body.innerHTML = `<h1>Page three</h1><button>Go</button>`;
    const first = ctxFor(document);
    const snap1 = (await handleOp(first, "snapshot", { refBase: 0 })) as { snapshot: string; refHigh: number };
    expect(snap1.snapshot).toContain("[ref=e1]");
    expect(snap1.refHigh).toBeGreaterThanOrEqual(2);

    // A new document (a navigation) gets a new registry; the service worker
    // passes the tab's highest ref as refBase.
    document.body.innerHTML = `<h1>Page two</h1><button>Other</button>`;
    const second = ctxFor(document);
    const snap2 = (await handleOp(second, "snapshot", { refBase: snap1.refHigh })) as { snapshot: string; refHigh: number };
    expect(snap2.snapshot).not.toMatch(/\[ref=e[12]\]/);
    expect(snap2.refHigh).toBeGreaterThan(snap1.refHigh);
    await expect(handleOp(second, "click", { ref: "e1" })).rejects.toThrow(/ref e1 was not found on this page; take a new browser_snapshot/);
  });

  it("advanceTo never moves the counter back and keeps existing refs", () => {
    document.body.innerHTML = `<button>A</button>`;
    const r = new RefRegistry();
    const a = document.querySelector("button")!;
    expect(r.refFor(a)).toBe("e1");
    r.advanceTo(10);
    expect(r.refFor(a)).toBe("e1");
    expect(r.refFor(document.body)).toBe("e11");
    r.advanceTo(5);
    expect(r.high).toBe(11);
  });
});

describe("navStarted in action answers", () => {
  it("reports whether the page began a navigation during the action", async () => {
    document.body.innerHTML = `<button>Go</button>`;
    let fire: (() => void) | undefined;
    const ctx: PageContext = {
      ...ctxFor(document),
      watchNavigate: () => {
        let started = false;
        fire = () => {
          started = true;
        };
        return () => started;
      },
    };
    await handleOp(ctx, "snapshot", {});
    const ref = ctx.refs.peek(document.querySelector("button")!)!;
    await expect(handleOp(ctx, "click", { ref })).resolves.toEqual({ navStarted: false });
    ctx.settle = async () => fire?.();
    await expect(handleOp(ctx, "click", { ref })).resolves.toEqual({ navStarted: true });
    // Reads never carry it.
    await expect(handleOp(ctx, "get_text", {})).resolves.not.toHaveProperty("navStarted");
  });
});
