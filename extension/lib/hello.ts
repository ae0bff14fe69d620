// Building the profile the auth carries and reading the hello's and the
// auth's acks (DESIGN §5.2, §5.3).

import { PROTOCOL_VERSION, type Auth, type SitePolicy, type TabInfo } from "./protocol.gen";
import type { Identity, Settings } from "./storage";

export const SERVER_INSTALL_COMMAND =
  "git pull && scripts/build (in your monkbrowse checkout)";

export const SERVER_TOO_OLD_REASON =
  "This monkbrowse server is too old for this extension: update it with " +
  `\`${SERVER_INSTALL_COMMAND}\` (or your package manager) and restart your AI app.`;

export interface HelloInput {
  settings: Settings;
  identity: Identity;
  tabs: TabInfo[];
  extVersion: string;
  chromeProfileName?: string;
  /** The AI is paused in this profile (Stop in the popup). */
  paused?: boolean;
  /** The organisation's policy in force (issue 44). */
  policy?: SitePolicy;
}

/** The profile half of the auth request: everything but the proof. */
export type AuthProfile = Omit<Auth, "proof">;

/**
 * buildProfile makes what the auth carries once the server proved itself
 * (the hello carries none of it). The stored slug is re-announced (so it
 * survives server restarts) only while it still belongs to the current
 * label: after the person renames the profile, the server derives a new one.
 */
export function buildProfile(input: HelloInput): AuthProfile {
  const { settings, identity } = input;
  const labelMatches = settings.label === "" || identity.assignedLabel === settings.label;
  // Keys in the Go struct's order, so the frame reads like the golden vectors.
  return {
    profileId: identity.profileId,
    label: settings.label,
    ...(identity.assignedSlug && labelMatches ? { slug: identity.assignedSlug } : {}),
    ...(input.chromeProfileName ? { chromeProfileName: input.chromeProfileName } : {}),
    tabs: input.tabs,
    ...(input.paused ? { paused: true } : {}),
    ...(input.policy ? { policy: input.policy } : {}),
  };
}

export type AckVerdict =
  | { accepted: true; assignedLabel: string; assignedSlug: string; serverVersion: string; auth: string; nonce: string; proof: string }
  | { accepted: false; reason: string; serverVersion?: string; said?: string; protocol?: number };

/** interpretAck reads the result of the hello request (whatever the server sent). */
export function interpretAck(result: unknown): AckVerdict {
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    return { accepted: false, reason: "The monkbrowse server sent an unreadable answer to hello; update the server and the extension to matching versions." };
  }
  const o = result as Record<string, unknown>;
  const serverVersion = typeof o.serverVersion === "string" ? o.serverVersion : undefined;
  const withVersion = (reason: string): AckVerdict =>
    serverVersion === undefined ? { accepted: false, reason } : { accepted: false, reason, serverVersion };

  if (!("protocol" in o) || o.protocol === null || o.protocol === undefined) {
    // A 0.2 server: its ack has assignedPort and no protocol.
    return withVersion(SERVER_TOO_OLD_REASON);
  }
  if (typeof o.protocol !== "number" || typeof o.ok !== "boolean") {
    return withVersion("The monkbrowse server sent a malformed answer to hello; update the server and the extension to matching versions.");
  }
  if (o.ok !== true) {
    // The peer's own words (said): a caller that has no proof from it yet
    // must not show them as ours (refusal.ts unprovenRefusal).
    if (typeof o.reason === "string" && o.reason !== "") return { ...withVersion(o.reason), said: o.reason, protocol: o.protocol } as AckVerdict;
    return withVersion("The monkbrowse server refused this browser profile without saying why.");
  }
  if (o.protocol !== PROTOCOL_VERSION) {
    const side =
      o.protocol < PROTOCOL_VERSION
        ? `update the monkbrowse server (\`${SERVER_INSTALL_COMMAND}\`) and restart your AI app`
        : "update the monkbrowse extension and reload it from chrome://extensions";
    return withVersion(
      `Protocol mismatch: this extension speaks protocol ${PROTOCOL_VERSION}, the monkbrowse server speaks protocol ${o.protocol}: ${side}.`,
    );
  }
  return {
    accepted: true,
    assignedLabel: typeof o.assignedLabel === "string" ? o.assignedLabel : "",
    assignedSlug: typeof o.assignedSlug === "string" ? o.assignedSlug : "",
    serverVersion: serverVersion ?? "",
    auth: typeof o.auth === "string" ? o.auth : "",
    nonce: typeof o.nonce === "string" ? o.nonce : "",
    proof: typeof o.proof === "string" ? o.proof : "",
  };
}
