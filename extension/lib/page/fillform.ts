// browser_fill_form: several fields in one call, each through the same
// helpers as the single-field tools (typeText, selectOption, click), so a
// field behaves exactly as it would with browser_type or browser_click. The
// caller (handler.ts) settles the page once after the last field.

import { click } from "./pointer";
import { selectOption } from "./select";
import { typeText } from "./typing";
import { isInput, isSelect, tagOf } from "./dom";
import { errorText } from "../peer";
import { PageError, type RefRegistry } from "./refs";
import { explicitRole } from "./aam";
import { describeElement } from "./describe";

export interface FillField {
  ref: string;
  element?: string;
  value: string;
}

const TRUE = new Set(["true", "on", "yes", "checked", "1"]);
const FALSE = new Set(["false", "off", "no", "unchecked", "0", ""]);

function toggleKind(el: Element): "checkbox" | "radio" | undefined {
  if (isInput(el)) {
    if (el.type === "checkbox") return "checkbox";
    if (el.type === "radio") return "radio";
    return undefined;
  }
  const role = explicitRole(el);
  if (role === "checkbox" || role === "switch" || role === "menuitemcheckbox") return "checkbox";
  if (role === "radio" || role === "menuitemradio") return "radio";
  if (tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c) return toggleKind(c);
  }
  return undefined;
}

function isChecked(el: Element): boolean {
  if (isInput(el)) return el.checked;
  if (tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c) return isChecked(c);
  }
  return el.getAttribute("aria-checked") === "true";
}

function parseBool(value: string, ref: string, el: Element): boolean {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new PageError(`ref ${ref} (${describeElement(el)}) is a checkbox or radio button: its value must be true or false, not ${JSON.stringify(value)}`);
}

/** Fills one field; throws a PageError naming what went wrong. */
export async function fillOne(refs: RefRegistry, f: FillField): Promise<void> {
  const el = refs.resolve(f.ref);
  const kind = toggleKind(el);
  if (kind) {
    const want = parseBool(f.value, f.ref, el);
    const has = isChecked(el);
    if (kind === "radio" && !want) {
      if (has) throw new PageError(`ref ${f.ref} (${describeElement(el)}) is a selected radio button; a radio button is cleared by choosing another one of its group (value true on that one)`);
      return;
    }
    if (has !== want) {
      await click(refs, f.ref);
      if (isChecked(el) !== want) {
        throw new PageError(`clicking ref ${f.ref} (${describeElement(el)}) did not make it ${want ? "checked" : "unchecked"}; the page may control it: take a browser_snapshot`);
      }
    }
    return;
  }
  let select: Element | null = isSelect(el) ? el : null;
  if (!select && tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c && isSelect(c)) select = c;
  }
  if (select) {
    selectOption(refs, { ref: f.ref, values: [f.value] });
    return;
  }
  await typeText(refs, { ref: f.ref, text: f.value });
}

/** Fills fields in order and stops at the first failure, saying which and what was filled. */
export async function fillForm(refs: RefRegistry, fields: FillField[]): Promise<{ filled: number }> {
  if (fields.length === 0) throw new PageError("fields is empty; pass at least one {element, ref, value}");
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    try {
      await fillOne(refs, f);
    } catch (e) {
      const name = f.element ? `${JSON.stringify(f.element)} (ref ${f.ref})` : `ref ${f.ref}`;
      const done = i === 0 ? "no field was filled" : `the ${i} field(s) before it were filled`;
      throw new PageError(`field ${i + 1} of ${fields.length}, ${name}, failed: ${errorText(e)}. ${done}; fix this field and send the rest again`);
    }
  }
  return { filled: fields.length };
}
