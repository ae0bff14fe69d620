// What the popup says about the connection and this profile.

import type { ConnectionState, Settings, Status } from "./storage";

export function describeStatus(
  status: Status | undefined,
  port: number,
): { state: ConnectionState; headline: string; reason?: string } {
  if (!status) return { state: "connecting", headline: `Connecting to the monkbrowse server on 127.0.0.1:${port}…` };
  const where = `127.0.0.1:${status.port}`;
  let headline: string;
  switch (status.state) {
    case "connected":
      headline = `Connected to the monkbrowse server on ${where}`;
      break;
    case "connecting":
      headline = `Connecting to the monkbrowse server on ${where}…`;
      break;
    case "rejected":
      headline = status.unproven ? `The program on ${where} refused this browser (it has not proven it is monkbrowse)` : "The monkbrowse server refused this browser";
      break;
    case "disconnected":
      headline = `Not connected (retrying ${where})`;
      break;
  }
  return status.reason ? { state: status.state, headline, reason: status.reason } : { state: status.state, headline };
}

export function describeIdentity(identity: unknown, settings: Settings): string {
  const o = (typeof identity === "object" && identity !== null ? identity : {}) as Record<string, unknown>;
  const label = typeof o.assignedLabel === "string" && o.assignedLabel ? o.assignedLabel : settings.label;
  const slug = typeof o.assignedSlug === "string" && o.assignedSlug ? o.assignedSlug : "";
  if (!label && !slug) return "Profile: not named yet (the server names it when it connects; set a label in Options)";
  if (slug && slug !== label) return `Profile: ${label || "(no label)"} · AI name: ${slug}`;
  return `Profile: ${label || slug}`;
}
