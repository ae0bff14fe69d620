// What the extension says when a program on the extension port refuses
// its hello (issue 40, finding 6). Before the hello is answered with a proof,
// nothing says the program is monkbrowse: any local program can listen on
// the port. Its words are never shown as ours: a refusal monkbrowse is
// known to send is recognised and told in the extension's own words, by
// code; anything else is quoted as the program's, cut, on one line and
// marked unverified.

import { PROTOCOL_VERSION } from "./protocol.gen";
import { quote } from "./page/snapshot-yaml";

/** The refusals of a hello that monkbrowse's server sends (protocol/handshake.go, server/internal/owner/listener.go, protocol/paircode.go). */
export type RefusalCode =
  | "malformed-hello"
  | "protocol-mismatch"
  | "untrusted-extension"
  | "no-pairing-secret"
  | "code-unknown"
  | "code-used"
  | "code-expired";

/** How each known refusal begins, as the server words it. */
const KNOWN: Array<[RefusalCode, RegExp]> = [
  ["malformed-hello", /^malformed hello: /],
  ["protocol-mismatch", /^protocol mismatch: the extension speaks protocol \d+, this monkbrowse server /],
  ["untrusted-extension", /^This extension \(id [a-p]{32}\) is not the monkbrowse extension this server trusts /],
  ["no-pairing-secret", /^this monkbrowse server cannot prove it is yours: it has no pairing secret /],
  ["code-unknown", /^this pairing code is not one that `monkbrowse pair` printed for this monkbrowse/],
  ["code-used", /^this pairing code was already used /],
  ["code-expired", /^this pairing code expired /],
];

/** The known refusal a program's reason is, or null. */
export function refusalCode(said: string): RefusalCode | null {
  for (const [code, re] of KNOWN) if (re.test(said)) return code;
  return null;
}

/** The most characters of a program's own words shown. */
export const MAX_QUOTED = 300;

/** The extension's words for a known refusal (theirProtocol: the protocol the program's answer says it speaks). */
export function refusalText(code: RefusalCode, port: number, theirProtocol?: number): string {
  const on = `monkbrowse on port ${port}`;
  switch (code) {
    case "malformed-hello":
      return `${on} could not read this extension's hello: the extension may be broken; reinstall it.`;
    case "protocol-mismatch": {
      const fix =
        typeof theirProtocol === "number" && theirProtocol > PROTOCOL_VERSION
          ? "update the monkbrowse extension and reload it from chrome://extensions"
          : "update the monkbrowse server, then restart your AI app";
      return `${on} speaks another protocol than this extension (${PROTOCOL_VERSION}): ${fix}.`;
    }
    case "untrusted-extension":
      return `${on} does not trust this extension's id: install the monkbrowse extension from its release; if this is your own build, start monkbrowse with --allow-extension-id and this extension's id (chrome://extensions shows it).`;
    case "no-pairing-secret":
      return `${on} has no pairing secret, so it cannot prove it is yours: run \`monkbrowse doctor\`, fix the folder it names, then restart your AI app.`;
    case "code-unknown":
      return `${on} does not know this pairing code: paste all of it, or run \`monkbrowse pair\` again where your AI app runs and paste the new code.`;
    case "code-used":
      return `${on} says this pairing code was already used (a code pairs once): run \`monkbrowse pair\` again and paste the new code.`;
    case "code-expired":
      return `${on} says this pairing code expired: run \`monkbrowse pair\` again and paste the new code.`;
  }
}

/**
 * What to show for a refusal by a program that has not proven it is
 * monkbrowse: a known refusal in the extension's words, else the program's
 * words quoted on one line, cut to MAX_QUOTED characters, marked unverified.
 */
export function unprovenRefusal(said: string, port: number, theirProtocol?: number): string {
  const code = refusalCode(said);
  if (code !== null) return refusalText(code, port, theirProtocol);
  const chars = Array.from(said);
  const cut = chars.length > MAX_QUOTED ? `${chars.slice(0, MAX_QUOTED).join("")}…` : said;
  return `The program on port ${port} refused this extension and says: ${quote(cut)} (unverified: it has not proven it is monkbrowse, so these are not monkbrowse's words; check that the port is your monkbrowse's).`;
}

/** What to show for a refused hello (no proof from the program yet): see unprovenRefusal. */
export function helloRefusal(v: { reason: string; said?: string; protocol?: number }, port: number): string {
  return v.said !== undefined ? unprovenRefusal(v.said, port, v.protocol) : v.reason;
}
