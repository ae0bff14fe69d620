// The targets of a call for the activity log (issue 28): each ref's role
// and accessible name as the page has them (never the AI's description),
// and whether it is a secret field, whose typed text the log never keeps.

import { computeAccessibleName } from "dom-accessibility-api";
import { pageRole } from "./aam";
import { normalizeSpace, tagOf, truncate } from "./dom";
import type { RefRegistry } from "./refs";
import { isSecretField } from "./secret";

export interface TargetInfo {
  role: string;
  name: string;
  secret: boolean;
}

function one(refs: RefRegistry, ref: string): TargetInfo | null {
  let el: Element;
  try {
    el = refs.resolve(ref);
  } catch {
    return null; // stale or unknown: the action will say so itself
  }
  let role = "";
  try {
    role = pageRole(el) ?? "";
  } catch {
    role = "";
  }
  let name = "";
  try {
    name = normalizeSpace(computeAccessibleName(el));
  } catch {
    name = "";
  }
  // A password input has no ARIA role; people know it as a text field.
  if (!role && tagOf(el) === "input") role = "textbox";
  return { role: role || tagOf(el), name: truncate(name, 80), secret: isSecretField(el) };
}

/** The targets of refs, in order (null for a ref the page does not know). */
export function describeTargets(refs: RefRegistry, list: string[]): { targets: (TargetInfo | null)[] } {
  return { targets: list.slice(0, 50).map((r) => one(refs, r)) };
}
