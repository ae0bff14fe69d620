// Settings at any moment (issue 12): the offscreen connection learns the
// port and label from the service worker at each attempt (connect-info), and
// a settings change tells it to reconnect at once. That message can miss the
// connection (the offscreen document still starting, or recreated, right
// after Chrome starts), and a connection that then connected, or waits out a
// slow retry, on the old settings would stay there. So the service worker
// also remembers what it last served and, on every status the connection
// reports and on its keepalive alarm, compares it with the stored settings:
// any difference means "reconnect now".

import { isValidPort, type Settings, type Status } from "./storage";

/** The port and label the connection was last given by connect-info. */
export interface Served {
  port: number;
  label: string;
}

/**
 * Whether the connection runs on settings other than the stored ones.
 * Without a record of what was served (the service worker restarted), a
 * status's port is the evidence; a status without a port proves nothing.
 */
export function needsReconnect(stored: Settings, served: Served | undefined, status?: Status): boolean {
  if (served) return served.port !== stored.port || served.label !== stored.label;
  return status !== undefined && isValidPort(status.port) && status.port !== stored.port;
}
