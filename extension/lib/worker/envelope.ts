// A runtime message to the service worker as its handlers get it: the
// message as sent, never changed, and what Chrome says of its sender (the
// tab and frame of a content script, whether it is a page rather than the
// extension's own). A handler reads who sent it from the sender only, so a
// message cannot name another tab or pass for the popup (issue 40).

import { errorCode, errorText } from "../peer";
import { isBgMessage, senderMayAsk, type BgKind, type BgMessage, type BgMessages, type Reply } from "../messages";

/** Who sent a message, as Chrome tells (chrome.runtime.MessageSender). */
export interface Sender {
  /** The sender's tab (a content script's), undefined for the extension's own pages. */
  tabId?: number;
  /** The sender's frame in that tab. */
  frameId?: number;
  /** The address of the sender's document, for a content script (a recorded step's frame, issue 42). */
  url?: string;
  /** Not one of the extension's own pages (its URL is not under the extension's origin): a content script in a page. */
  fromPage: boolean;
}

export interface Envelope<K extends BgKind = BgKind> {
  message: BgMessage<K>;
  sender: Sender;
}

/** One handler per message kind: the message and its sender. */
export type Handlers = { [K in BgKind]: (message: BgMessage<K>, sender: Sender) => Promise<BgMessages[K]["res"]> };

/** This extension, as senderMayAsk compares senders with it. */
export interface Self {
  id: string;
  /** chrome-extension://<id>/ */
  origin: string;
}

/**
 * The handler's answer for one runtime message, or undefined when the
 * message is not ours (not a BgMessage: another listener's, or none).
 * A kind this sender may not send, or one no handler takes, is refused.
 */
export function dispatch(msg: unknown, from: chrome.runtime.MessageSender, self: Self, handlers: Handlers): Promise<Reply<unknown>> | undefined {
  if (!isBgMessage(msg)) return undefined;
  if (!senderMayAsk(msg.kind, from, self)) {
    return Promise.resolve({ ok: false, error: `internal message "${msg.kind}" is not accepted from this sender` });
  }
  const h = (handlers as Partial<Record<string, (m: BgMessage, s: Sender) => Promise<unknown>>>)[msg.kind];
  if (!h) return Promise.resolve({ ok: false, error: `unknown internal message "${msg.kind}"` });
  const sender: Sender = { fromPage: !(from.url ?? "").startsWith(self.origin) };
  if (from.tab?.id !== undefined) sender.tabId = from.tab.id;
  if (from.frameId !== undefined) sender.frameId = from.frameId;
  if (from.tab?.id !== undefined && from.url !== undefined) sender.url = from.url;
  return h(msg, sender).then(
    (result): Reply<unknown> => ({ ok: true, result }),
    (e: unknown): Reply<unknown> => ({ ok: false, error: errorText(e), code: errorCode(e) }),
  );
}
