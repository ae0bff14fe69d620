// describeElement: an element in a few words, for error messages.

import { computeAccessibleName } from "dom-accessibility-api";
import { pageRole } from "./aam";
import { normalizeSpace, tagOf, truncate } from "./dom";
import { SecretValues } from "./secret";
import { quote, roleText } from "./snapshot-yaml";

/** `button "Continue"` — a short description of an element for error messages. */
export function describeElement(el: Element): string {
  let role: string | null = null;
  try {
    role = pageRole(el);
  } catch {
    role = null;
  }
  let name = "";
  try {
    name = normalizeSpace(computeAccessibleName(el));
    // A name computed from a label that embeds a secret field carries its value.
    name = SecretValues.of(el.ownerDocument)?.maskName(el, name) ?? name;
  } catch {
    name = "";
  }
  // A page's role and name on one line, quoted unless a plain token (snapshot-yaml.ts).
  const what = role !== null && role !== undefined ? roleText(role) : `<${tagOf(el)}>`;
  return name ? `${what} ${quote(truncate(name, 60))}` : what;
}
