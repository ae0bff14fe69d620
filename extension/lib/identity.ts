// This Chrome profile's identity: a random profileId created once and kept in
// storage, plus the label and slug the server assigned at the last hello.

import type { Identity } from "./storage";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * ensureIdentity returns the stored identity when it is usable, else a new
 * one with a fresh profileId; `changed` says whether it must be written back.
 */
export function ensureIdentity(
  stored: unknown,
  newUUID: () => string,
): { identity: Identity; changed: boolean } {
  const o = (typeof stored === "object" && stored !== null ? stored : {}) as Record<string, unknown>;
  if (typeof o.profileId === "string" && UUID_RE.test(o.profileId)) {
    const identity: Identity = { profileId: o.profileId };
    if (typeof o.assignedLabel === "string" && o.assignedLabel !== "") identity.assignedLabel = o.assignedLabel;
    if (typeof o.assignedSlug === "string" && o.assignedSlug !== "") identity.assignedSlug = o.assignedSlug;
    return { identity, changed: false };
  }
  return { identity: { profileId: newUUID() }, changed: true };
}

/** Records what the server assigned in an accepted hello. */
export function withAssigned(identity: Identity, assignedLabel: string, assignedSlug: string): Identity {
  const next: Identity = { profileId: identity.profileId };
  if (assignedLabel) next.assignedLabel = assignedLabel;
  if (assignedSlug) next.assignedSlug = assignedSlug;
  return next;
}
