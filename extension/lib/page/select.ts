// browser_select_option: chooses options of a native <select>.

import { isSelect, normalizeSpace, tagOf } from "./dom";
import { ensureEnabled, fire } from "./events";
import { focusElement } from "./focus";
import { PageError, type RefRegistry } from "./refs";
import { describeElement } from "./describe";

// ---------- select ----------

export function optionLabel(o: HTMLOptionElement): string {
  return normalizeSpace(o.label || o.text || "");
}

export function chooseOptions(select: HTMLSelectElement, chosen: HTMLOptionElement[]): void {
  focusElement(select);
  const opts = Array.from(select.options);
  if (select.multiple) {
    for (const o of opts) o.selected = chosen.includes(o);
  } else if (chosen[0]) {
    select.selectedIndex = opts.indexOf(chosen[0]);
    chosen[0].selected = true;
  }
  fire(select, "input");
  fire(select, "change");
}

export function selectOption(refs: RefRegistry, args: { ref: string; values: string[] }): { selected: string[] } {
  const found = refs.resolve(args.ref);
  let el: Element = found;
  if (!isSelect(el)) {
    const inner = tagOf(el) === "label" ? (el as HTMLLabelElement).control : el.querySelector("select");
    if (inner && isSelect(inner)) el = inner;
  }
  if (!isSelect(el)) {
    throw new PageError(
      `ref ${args.ref} (${describeElement(found)}) is not a native drop-down (<select>); for a custom list, click it and then click the option's ref`,
    );
  }
  const select = el;
  ensureEnabled(select, args.ref, "changed");
  const values = Array.isArray(args.values) ? args.values.map(String) : [];
  if (values.length === 0) throw new PageError("values is empty; pass the value or label of at least one option");
  if (!select.multiple && values.length > 1) {
    throw new PageError(`ref ${args.ref} (${describeElement(select)}) allows one choice; pass one value, not ${values.length}`);
  }
  const opts = Array.from(select.options);
  const chosen: HTMLOptionElement[] = [];
  const missing: string[] = [];
  for (const v of values) {
    const o =
      opts.find((x) => x.value === v) ??
      opts.find((x) => optionLabel(x) === normalizeSpace(v)) ??
      opts.find((x) => optionLabel(x).toLowerCase() === normalizeSpace(v).toLowerCase());
    if (o) chosen.push(o);
    else missing.push(v);
  }
  if (missing.length > 0) {
    const list = opts
      .slice(0, 40)
      .map((o) => (optionLabel(o) === o.value ? JSON.stringify(o.value) : `${JSON.stringify(o.value)} (${optionLabel(o)})`))
      .join(", ");
    throw new PageError(
      `no option matches ${missing.map((m) => JSON.stringify(m)).join(", ")}; the options are: ${list}${opts.length > 40 ? `, … (${opts.length} in all)` : ""}`,
    );
  }
  const disabled = chosen.find((o) => o.disabled);
  if (disabled) throw new PageError(`option ${JSON.stringify(optionLabel(disabled))} is disabled and cannot be chosen`);
  chooseOptions(select, chosen);
  return { selected: opts.filter((o) => o.selected).map((o) => o.value) };
}
