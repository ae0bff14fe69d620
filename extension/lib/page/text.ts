// browser_get_text: the visible text of the page or of one element.

import { isSelect, isTextField } from "./dom";
import type { RefRegistry } from "./refs";
import { isSecretField, maskSecret } from "./secret";
import { optionLabel } from "./select";

/** Longest text get_text returns. */
export const MAX_TEXT = 100_000;

// ---------- text ----------

export function getText(refs: RefRegistry, doc: Document, args: { ref?: string }): { text: string } {
  let text: string;
  if (args.ref) {
    const el = refs.resolve(args.ref);
    if (isTextField(el) || isSelect(el)) {
      text = isSelect(el) ? Array.from(el.options).filter((o) => o.selected).map(optionLabel).join(", ") : isSecretField(el) ? maskSecret(el.value) : el.value;
    } else {
      text = visibleText(el);
    }
  } else {
    text = doc.body ? visibleText(doc.body) : (doc.documentElement?.textContent ?? "");
  }
  if (text.length > MAX_TEXT) {
    text = `${text.slice(0, MAX_TEXT)}\n… [truncated: showed ${MAX_TEXT} of ${text.length} characters; pass a ref to read one part]`;
  }
  return { text };
}

function visibleText(el: Element): string {
  const inner = (el as HTMLElement).innerText;
  const raw = typeof inner === "string" ? inner : (el.textContent ?? "");
  return raw.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}
