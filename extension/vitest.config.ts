import { defineConfig } from "vitest/config";

// Two projects: the extension's pure logic runs under Node; the page side
// (lib/page/**, owned by the snapshot/DOM-actions code) runs under happy-dom.
export default defineConfig({
  test: {
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
