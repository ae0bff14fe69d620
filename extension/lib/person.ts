// The person's own edits of a shared tab (issue 29, DESIGN §7.1): pure logic
// over a small key-value store (chrome.storage.session in the service
// worker, a fake in tests). background/person.ts feeds it from the content
// scripts and chrome.webNavigation; the server asks for what came after the
// last number an AI app was told (person_edits).
//
// The rule that tells the person's input from monkbrowse's: an input event
// counts as the person's when it is trusted (isTrusted: a page script cannot
// make one) AND monkbrowse was not acting in that tab at that moment: no wire
// request for the tab was being handled then (from the moment the worker
// took it to its answer; INPUT_GRACE_MS after it is 0: an action's own input,
// the debugger mode's too, is dispatched and settled before the action
// answers). The debugger mode's input is trusted too, and it is sent only
// while a request is being handled, so it is the AI's by the second half. Untrusted events (the DOM mode's actions, the page's own) never count.
// A navigation of the top frame counts as the person's when monkbrowse was
// not acting then and it is one people make (typed or chosen in the address
// bar, a bookmark, reload, back or forward), or a link click or form
// submission within LINK_AFTER_INPUT_MS of the person's own input in the tab
// (after monkbrowse's last action there); never a client or server redirect.

import { afterEither } from "./diag";
import type { PersonEdit } from "./protocol.gen";

export type PersonKind = "typed" | "clicked" | "chose" | "navigated" | "back_forward" | "reloaded" | "pointed";

/** An edit as the content script or the navigation listener reports it. */
export interface NewEdit {
  kind: PersonKind;
  role?: string;
  name?: string;
  ref?: string;
  url?: string;
}

/** How many edits a tab keeps (repeats collapsed); older ones are dropped. */
export const PERSON_LIMIT = 12;
/** Input this soon after monkbrowse's last request for the tab ended is still taken for its own (see above: none). */
export const INPUT_GRACE_MS = 0;
/** A link click or form submission is the person's when their own input came this shortly before. */
export const LINK_AFTER_INPUT_MS = 10_000;
/** The longest name kept. */
export const PERSON_NAME_LIMIT = 80;

export interface KV {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(key: string): Promise<void>;
}

interface Stored {
  seq: number;
  edits: PersonEdit[];
}

const keyOf = (tabId: number) => `person:${tabId}`;

function cut(s: string | undefined, n: number): string | undefined {
  if (s === undefined || s === "") return undefined;
  const chars = [...s];
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : s;
}

function normalize(v: unknown): Stored {
  const s = v as Partial<Stored> | undefined;
  if (!s || typeof s.seq !== "number" || !Array.isArray(s.edits)) return { seq: 0, edits: [] };
  return { seq: s.seq, edits: s.edits.filter((e) => e && typeof e === "object" && typeof e.seq === "number" && typeof e.kind === "string") };
}

const same = (a: PersonEdit, b: NewEdit) => a.kind === b.kind && a.ref === b.ref && a.name === b.name && a.role === b.role && a.url === b.url;

/**
 * Each shared tab's numbered edits. Writes are chained, so two events at
 * once never lose one; the store survives the service worker stopping.
 */
export class PersonLog {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly kv: KV,
    private readonly limit = PERSON_LIMIT,
  ) {}

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = afterEither(run);
    return run;
  }

  /** Records one edit: the same thing again on the same element is one entry with a count, renumbered. */
  add(tabId: number, e: NewEdit): Promise<number> {
    return this.locked(async () => {
      const s = normalize((await this.kv.get(keyOf(tabId)))[keyOf(tabId)]);
      const clean: NewEdit = { kind: e.kind };
      const role = cut(e.role, 40);
      const name = cut(e.name, PERSON_NAME_LIMIT);
      const url = cut(e.url, 1000);
      if (role !== undefined) clean.role = role;
      if (name !== undefined) clean.name = name;
      if (e.ref !== undefined && /^(?:f[1-9]\d*)?e[1-9]\d*$/.test(e.ref)) clean.ref = e.ref;
      if (url !== undefined) clean.url = url;
      s.seq++;
      const last = s.edits[s.edits.length - 1];
      if (last && same(last, clean)) {
        s.edits[s.edits.length - 1] = { ...last, seq: s.seq, count: (last.count ?? 1) + 1 };
      } else {
        s.edits.push({ ...clean, seq: s.seq });
      }
      if (s.edits.length > this.limit) s.edits = s.edits.slice(s.edits.length - this.limit);
      await this.kv.set({ [keyOf(tabId)]: s });
      return s.seq;
    });
  }

  /**
   * The tab's number and the edits after since (none without since: the
   * app's first call on the tab). A since beyond the number means the log
   * started again (the browser restarted): everything kept is new.
   */
  since(tabId: number, since: number | undefined): Promise<{ seq: number; edits: PersonEdit[] }> {
    return this.locked(async () => {
      const s = normalize((await this.kv.get(keyOf(tabId)))[keyOf(tabId)]);
      if (since === undefined) return { seq: s.seq, edits: [] };
      const from = since > s.seq ? 0 : since;
      return { seq: s.seq, edits: s.edits.filter((e) => e.seq > from) };
    });
  }

  forget(tabId: number): Promise<void> {
    return this.locked(() => this.kv.remove(keyOf(tabId)));
  }
}

/**
 * When monkbrowse was acting in each tab: the spans of the wire requests it
 * handled there (the last few per tab; a request still running has no end).
 */
export class Acting {
  private readonly spans = new Map<number, { start: number; end?: number }[]>();

  /** A request for tabId begins at now; the returned function ends it. */
  begin(tabId: number, now: number): (at: number) => void {
    const list = this.spans.get(tabId) ?? [];
    const span: { start: number; end?: number } = { start: now };
    list.push(span);
    // Only recent spans matter (events arrive within moments); running ones are kept.
    while (list.length > 16 && list[0]?.end !== undefined) list.shift();
    this.spans.set(tabId, list);
    return (at) => {
      span.end = at;
    };
  }

  /** Whether monkbrowse was acting in tabId at the moment at (within grace after a request ended). */
  actingAt(tabId: number, at: number, grace = INPUT_GRACE_MS): boolean {
    for (const s of this.spans.get(tabId) ?? []) {
      if (at >= s.start && (s.end === undefined || at <= s.end + grace)) return true;
    }
    return false;
  }

  /** When monkbrowse's last request for tabId ended (0: none, or one still running). */
  lastEnd(tabId: number): number {
    let last = 0;
    for (const s of this.spans.get(tabId) ?? []) {
      if (s.end === undefined) return Number.POSITIVE_INFINITY;
      last = Math.max(last, s.end);
    }
    return last;
  }

  forget(tabId: number): void {
    this.spans.delete(tabId);
  }
}

/** The transitions people make themselves in the address bar, bookmarks and history. */
const PERSON_TRANSITIONS: ReadonlySet<string> = new Set(["typed", "auto_bookmark", "generated", "keyword", "keyword_generated", "start_page"]);

/**
 * Whether a top-frame navigation (webNavigation.onCommitted) is the
 * person's, and as what; undefined when it is not (see the rule at the top).
 * lastInput is when the person's own input in the tab was last recorded.
 */
export function personNavigation(
  d: { transitionType?: string; transitionQualifiers?: string[]; timeStamp: number },
  acting: boolean,
  lastInput: number | undefined,
  lastActionEnd: number,
): Exclude<PersonKind, "typed" | "clicked" | "chose" | "pointed"> | undefined {
  if (acting) return undefined;
  const q = d.transitionQualifiers ?? [];
  if (q.includes("client_redirect") || q.includes("server_redirect")) return undefined;
  if (q.includes("forward_back")) return "back_forward";
  const t = d.transitionType ?? "";
  if (t === "reload") return "reloaded";
  if (PERSON_TRANSITIONS.has(t) || q.includes("from_address_bar")) return "navigated";
  if (t === "link" || t === "form_submit") {
    if (lastInput !== undefined && lastInput > lastActionEnd && d.timeStamp - lastInput <= LINK_AFTER_INPUT_MS) return "navigated";
  }
  return undefined;
}
