import { defineConfig } from "vitest/config";

// Two projects: the extension's pure logic runs under Node; the page side
// (lib/page/**, owned by the snapshot/DOM-actions code) runs under happy-dom.
export default defineConfig({
  test: {
    // A test fails on what it asserts, never on the clock: under load (2 busy
    // cores) the 2,000-element snapshot test took over vitest's default 5 s.
    // Speed is measured by scripts/bench. The watchdog only stops a hang.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "lib",
          environment: "node",
          include: ["lib/**/*.test.ts", "entrypoints/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["lib/page/**", "node_modules/**", ".output/**", ".wxt/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "page",
          environment: "happy-dom",
          include: ["lib/page/**/*.test.ts"],
        },
      },
    ],
  },
});
