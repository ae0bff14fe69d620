import { describe, expect, it } from "vitest";
import { MAX_SCREENSHOT_PIXELS } from "./protocol.gen";
import { fitScale, scaledSize, shotOptions } from "./shot-size";

describe("the screenshot size rule", () => {
  it("scales a 16:9 capture to about 1155×650, within ~1,000 image tokens", () => {
    const f = fitScale(1920, 1080, false);
    const s = scaledSize(1920, 1080, f);
    expect(s.width * s.height).toBeLessThanOrEqual(MAX_SCREENSHOT_PIXELS);
    expect(Math.ceil((s.width * s.height) / 750)).toBeLessThanOrEqual(1000);
    expect(s).toEqual({ width: 1154, height: 649 });
  });

  it("keeps small captures and full-size requests as they are", () => {
    expect(fitScale(800, 600, false)).toBe(1);
    expect(fitScale(3840, 2160, true)).toBe(1);
    expect(scaledSize(800.4, 600, 1)).toEqual({ width: 800, height: 600 });
  });

  it("holds for tall full-page captures and thin strips", () => {
    const cases: [number, number][] = [
      [1280, 20_000],
      [3000, 1],
      [1, 3_000_000],
      [2560, 1600],
    ];
    for (const [w, h] of cases) {
      const s = scaledSize(w, h, fitScale(w, h, false));
      expect(s.width * s.height).toBeLessThanOrEqual(MAX_SCREENSHOT_PIXELS);
      expect(s.width).toBeGreaterThanOrEqual(1);
      expect(s.height).toBeGreaterThanOrEqual(1);
    }
  });

  it("defaults to JPEG at quality 80 and refuses other formats and qualities", () => {
    expect(shotOptions({})).toEqual({ format: "jpeg", quality: 0.8, fullSize: false });
    expect(shotOptions({ format: "png", fullSize: true })).toEqual({ format: "png", quality: 0.8, fullSize: true });
    expect(shotOptions({ format: "webp", quality: 40 }).quality).toBe(0.4);
    expect(() => shotOptions({ format: "gif" })).toThrow(/jpeg, png or webp/);
    expect(() => shotOptions({ quality: 101 })).toThrow(/1 to 100/);
  });
});
