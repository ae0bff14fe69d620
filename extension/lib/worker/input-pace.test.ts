import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createInputPace, KEY_AFTER_PRESS_MS } from "./input-pace";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Whether p has settled, after the microtasks queued so far ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("createInputPace", () => {
  it("holds a key sent right after a press until KEY_AFTER_PRESS_MS have passed", async () => {
    const pace = createInputPace();
    pace.pressed(7);
    await vi.advanceTimersByTimeAsync(100);
    const key = pace.beforeKey(7);
    expect(await settled(key)).toBe(false);
    await vi.advanceTimersByTimeAsync(KEY_AFTER_PRESS_MS - 100 - 1);
    expect(await settled(key)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(key)).toBe(true);
    expect(await key).toBe(KEY_AFTER_PRESS_MS - 100);
  });

  it("keeps ProseMirror's 200 ms after focus clear", () => {
    expect(KEY_AFTER_PRESS_MS).toBeGreaterThan(200);
  });

  it("never holds a key long after the press, without a press, or in another tab", async () => {
    const pace = createInputPace();
    expect(await settled(pace.beforeKey(7))).toBe(true);
    pace.pressed(7);
    expect(await settled(pace.beforeKey(8))).toBe(true);
    await vi.advanceTimersByTimeAsync(KEY_AFTER_PRESS_MS);
    const late = pace.beforeKey(7);
    expect(await settled(late)).toBe(true);
    expect(await late).toBe(0);
  });

  it("holds only the first key after a press: the next ones come later anyway", async () => {
    const pace = createInputPace();
    pace.pressed(7);
    const first = pace.beforeKey(7);
    await vi.advanceTimersByTimeAsync(KEY_AFTER_PRESS_MS);
    expect(await first).toBe(KEY_AFTER_PRESS_MS);
    const second = pace.beforeKey(7);
    expect(await settled(second)).toBe(true);
    expect(await second).toBe(0);
  });

  it("counts from the latest press", async () => {
    const pace = createInputPace();
    pace.pressed(7);
    await vi.advanceTimersByTimeAsync(200);
    pace.pressed(7);
    const key = pace.beforeKey(7);
    await vi.advanceTimersByTimeAsync(KEY_AFTER_PRESS_MS - 1);
    expect(await settled(key)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(key)).toBe(true);
  });
});
