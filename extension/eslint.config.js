// The extension's linter (scripts/test runs `npm run lint`): ESLint's and
// typescript-eslint's recommended rules, nothing more. tsc (strict) checks
// the types; this catches what compiles but is likely wrong.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: [".output/**", ".wxt/**", "node_modules/**", "lib/protocol.gen.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // tsc (strict) already rejects unknown names, with the DOM, chrome and
      // node types; ESLint's own check knows none of them.
      "no-undef": "off",
      // The page code's idiom `let x: T | null = null; try { x = … } catch
      // { x = null }` keeps the type and the fallback in view: not dead code.
      "no-useless-assignment": "off",
      // Errors are reworded for the AI on purpose; a chained cause is shown
      // to no one (the server sends only the message).
      "preserve-caught-error": "off",
      // Unused arguments named _x are deliberate (interfaces, callbacks).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
);
