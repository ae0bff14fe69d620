// Values the AI is never shown: what a person types into a password field or
// a one-time-code field (autocomplete="one-time-code"). Snapshots and
// get_text show bullets instead (one per character, at most 12).

/** A field whose value is a secret. */
export function isSecretField(el: Element): boolean {
  const tag = el.tagName.toLowerCase();
  if (tag !== "input" && tag !== "textarea") return false;
  if (tag === "input" && (el as HTMLInputElement).type === "password") return true;
  const ac = (el.getAttribute("autocomplete") ?? "").toLowerCase().split(/\s+/);
  return ac.includes("one-time-code");
}

/** The masked form of a secret value ("" stays ""). */
export function maskSecret(value: string): string {
  return "•".repeat(Math.min(value.length, 12));
}
