// The activity log, the pause and which AI app opened or last used each
// tab (issue 28, DESIGN §7.1). Pure logic over a small key-value store:
// the service worker gives it chrome.storage.local (restricted to the
// extension's own pages by lockStorage), the tests a fake. Nothing here
// ever leaves the browser: the log is not sent to the server.

import { afterEither } from "./diag";
import { quote, roleText } from "./page/snapshot-yaml";
import { maskedArgs } from "./sitetools";
import { SITE_CONSENT } from "./protocol.gen";

/** Storage keys (chrome.storage.local). */
export const KEY_ACTIVITY = "activity";
export const KEY_PAUSE = "pause";
export const KEY_TAB_APPS = "tabApps";
export const KEY_APP_GROUPS = "appGroups";

/** The most entries kept; the oldest go first. */
export const LOG_LIMIT = 500;
/** The longest typed text kept in an entry. */
export const TEXT_LIMIT = 80;
/** The activity log's tool for the person pointing at something ("Show this to the AI", issue 29). */
export const PERSON_POINTED = "person_pointed";
/** Who the person's own entries name. */
export const PERSON_APP = "You";
/** The name shown for a call whose server did not say which app made it (an older server). */
export const UNKNOWN_APP = "AI app";

export type Outcome = "done" | "error" | "cancelled" | "refused" | "paused";

/** The element an action targeted, read from the page (never the AI's words). */
export interface Target {
  role: string;
  name: string;
}

export interface ActivityEntry {
  /** Unix milliseconds when the call ended. */
  at: number;
  app: string;
  /** The wire type (browser_click, …). */
  tool: string;
  /** The tool as a verb for people ("clicked"). */
  verb: string;
  target?: Target;
  /** Text typed or chosen, only for ordinary fields (never a secret field's). */
  text?: string;
  tabId?: number;
  slot?: number;
  url?: string;
  outcome: Outcome;
  /** The error sentence of a failed call (cut short). */
  detail?: string;
  /** How many times in a row this same read happened (a browser_wait polling the page), or this call was refused while paused. */
  times?: number;
}

/** The minimal store the log needs (chrome.storage.local's shape). */
export interface KV {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

const VERBS: Record<string, string> = {
  browser_navigate: "went to a page",
  browser_go_back: "went back",
  browser_go_forward: "went forward",
  browser_reload: "reloaded the page",
  browser_click: "clicked",
  browser_hover: "hovered over",
  browser_type: "typed into",
  browser_select_option: "chose an option in",
  browser_press_key: "pressed a key",
  browser_scroll: "scrolled",
  browser_drag: "dragged",
  browser_upload_file: "uploaded a file to",
  browser_get_console_logs: "read the console",
  browser_screenshot: "took a screenshot",
  browser_snapshot: "read the page",
  browser_get_text: "read the text",
  browser_evaluate: "ran JavaScript",
  browser_switch_tab: "switched to the tab",
  browser_new_tab: "opened a tab",
  browser_close_tab: "closed the tab",
  browser_fill_form: "filled a form",
  browser_click_xy: "clicked at a point",
  browser_drag_xy: "dragged across the page",
  browser_network_requests: "read the network requests",
  browser_pdf: "saved the page as PDF",
  browser_handle_dialog: "set the answer to dialogs",
  browser_ask_user: "asked you",
  browser_get_selection: "read what you showed it",
  recordings: "read your recordings",
  browser_site_tools: "listed the page's own tools",
  browser_site_tool_call: "used the page's tool",
  // The person's own entry (issue 29): "Show this to the AI" in the context menu.
  [PERSON_POINTED]: "showed the AI",
};

/** The wire types logged: every one that touches a shared tab. */
export function isLogged(type: string): boolean {
  return Object.hasOwn(VERBS, type);
}

/** Reads: one right after an action of the same app in the same tab is that action's follow-up snapshot. */
export const READ_TYPES: ReadonlySet<string> = new Set(["browser_snapshot"]);

export function verbOf(type: string): string {
  return VERBS[type] ?? type;
}

/** The outcome of a call from its error's code (undefined: it succeeded). */
export function outcomeOf(failed: boolean, code?: string): Outcome {
  if (!failed) return "done";
  switch (code) {
    case "paused":
      return "paused";
    case "cancelled":
      return "cancelled";
    case "unshared":
    case "not_shared":
    case "tab_gone":
    case "site_rule":
      return "refused";
    default:
      return "error";
  }
}

function cut(s: string, n: number): string {
  const chars = [...s];
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : s;
}

/**
 * The text an entry may show for what was typed into (or chosen in) a field:
 * nothing for a secret field (password, one-time code, card: lib/page/secret.ts
 * decides in the page), else the text cut to TEXT_LIMIT.
 */
export function typedText(text: string | undefined, secret: boolean): string | undefined {
  if (secret || text === undefined || text === "") return undefined;
  return cut(text, TEXT_LIMIT);
}

/**
 * A pressed key as the log shows it: a key that types a character (one
 * character, alone or with Shift) as "•", since it went into whatever field
 * had the focus, perhaps a password field (issue 40); named keys and
 * shortcuts (Enter, Ctrl+A) as they are.
 */
export function keyShown(key: string): string {
  // "+" and "Shift++" name the plus key itself.
  const plus = key.endsWith("+") && (key.length === 1 || key.endsWith("++"));
  const parts = plus ? [...key.slice(0, -2).split("+").filter((m) => m !== ""), "+"] : key.split("+");
  const last = parts[parts.length - 1] ?? "";
  const mods = parts.slice(0, -1).map((m) => m.trim().toLowerCase());
  const types = [...last].length === 1 && mods.every((m) => m === "shift");
  return types ? "•" : key;
}

/** The refs a request targets, in the order its entry describes them. */
export function refsOf(type: string, p: Record<string, unknown>): string[] {
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? [v] : []);
  switch (type) {
    case "browser_drag":
      return [...str(p.startRef), ...str(p.endRef)];
    case "browser_fill_form":
      return Array.isArray(p.fields) ? p.fields.flatMap((f) => str((f as Record<string, unknown> | null)?.ref)) : [];
    default:
      return str(p.ref);
  }
}

/** What the person may read of what was typed or chosen: never a secret field's text. */
export function textOf(type: string, p: Record<string, unknown>, secrets: boolean[]): string | undefined {
  const secret = secrets.some((s) => s);
  switch (type) {
    case "browser_type":
      return typedText(typeof p.text === "string" ? p.text : undefined, secret);
    case "browser_select_option":
      return typedText(Array.isArray(p.values) ? p.values.filter((v) => typeof v === "string").join(", ") : undefined, secret);
    case "browser_press_key":
      return typedText(typeof p.key === "string" ? keyShown(p.key) : undefined, false);
    case "browser_navigate":
    case "browser_new_tab":
      return typedText(typeof p.url === "string" ? p.url : undefined, false);
    case "browser_upload_file":
      return typedText(typeof p.name === "string" ? p.name : undefined, false);
    case "browser_ask_user":
      return typedText(typeof p.message === "string" ? p.message : undefined, false);
    case "browser_site_tool_call":
      // The tool's name and its arguments, secret-named fields masked (issue 43).
      return typedText(typeof p.name === "string" ? `${p.name} ${maskedArgs(p.arguments ?? {}, TEXT_LIMIT)}` : undefined, false);
    case "browser_fill_form": {
      // Each field's value, except a secret field's.
      const fields = Array.isArray(p.fields) ? (p.fields as Record<string, unknown>[]) : [];
      const shown = fields.map((f, i) => (secrets[i] ? "•••" : typeof f?.value === "string" ? f.value : ""));
      return typedText(shown.join(", "), false);
    }
    default:
      return undefined;
  }
}

/**
 * Why a call that answered without an error did nothing, for its entry's
 * detail (its outcome is then refused): a site tool the person denied or
 * did not answer about (issue 43). undefined for every other answer.
 */
export function refusalIn(type: string, result: Record<string, unknown>): string | undefined {
  if (type !== "browser_site_tool_call") return undefined;
  if (result.consent === SITE_CONSENT.denied) return "you denied it: nothing ran";
  if (result.consent === SITE_CONSENT.noAnswer) return "you did not answer in time: nothing ran";
  return undefined;
}

/** A well-formed entry, or undefined (storage written by another version). */
function normalizeEntry(v: unknown): ActivityEntry | undefined {
  if (!v || typeof v !== "object") return undefined;
  const e = v as Record<string, unknown>;
  if (typeof e.at !== "number" || typeof e.app !== "string" || typeof e.tool !== "string" || typeof e.outcome !== "string") return undefined;
  return e as unknown as ActivityEntry;
}

export function normalizeLog(v: unknown): ActivityEntry[] {
  if (!Array.isArray(v)) return [];
  return v.map(normalizeEntry).filter((e): e is ActivityEntry => e !== undefined);
}

/** The reads that repeat (a browser_wait polls the page text): one entry counts them. */
const REPEATING_READS: ReadonlySet<string> = new Set(["browser_get_text", "browser_snapshot", "browser_get_console_logs", "browser_network_requests"]);

/**
 * Whether e repeats last: the same read by the same app in the same tab
 * with the same outcome, or the same call refused again while paused (an
 * AI app retrying in a loop).
 */
function sameRead(last: ActivityEntry, e: ActivityEntry): boolean {
  return (
    (REPEATING_READS.has(e.tool) || e.outcome === "paused") &&
    last.tool === e.tool &&
    last.app === e.app &&
    last.tabId === e.tabId &&
    last.outcome === e.outcome &&
    last.target?.name === e.target?.name
  );
}

/** How long after an append the log is written, so calls in a row cost one write. */
export const LOG_WRITE_DELAY_MS = 250;

/**
 * The log: kept in memory once read (the worker's copy) and written to the
 * store at most every LOG_WRITE_DELAY_MS, cut to LOG_LIMIT, newest last, so
 * it survives the service worker stopping. Every append used to read and
 * rewrite the whole list (up to ~150 KB) in the store, on the worker's
 * thread between one call and the next: that cost every call several
 * milliseconds (DECISIONS). An append's promise settles once the entry is
 * stored. Chrome stops an idle worker after 30 s, so the delay loses
 * nothing in practice; a worker killed within it loses those entries.
 */
export class ActivityLog {
  private chain: Promise<unknown> = Promise.resolve();
  private mem: ActivityEntry[] | undefined;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly kv: KV,
    private readonly limit = LOG_LIMIT,
    private readonly writeDelayMs = LOG_WRITE_DELAY_MS,
  ) {}

  private locked<T>(fn: (log: ActivityEntry[]) => T | Promise<T>): Promise<T> {
    const run = this.chain.then(async () => {
      this.mem ??= normalizeLog((await this.kv.get(KEY_ACTIVITY))[KEY_ACTIVITY]);
      return fn(this.mem);
    });
    this.chain = afterEither(run);
    return run;
  }

  /** Writes the memory copy after the delay; appends meanwhile share the write. */
  private write(): Promise<void> {
    this.pending ??= new Promise<void>((resolve) => setTimeout(resolve, this.writeDelayMs)).then(() =>
      this.locked(async (log) => {
        this.pending = undefined;
        const kept = log.slice(Math.max(0, log.length - this.limit));
        this.mem = kept;
        await this.kv.set({ [KEY_ACTIVITY]: kept });
      }),
    );
    return this.pending;
  }

  append(e: ActivityEntry): Promise<void> {
    const clean: ActivityEntry = { ...e };
    if (clean.detail !== undefined) clean.detail = cut(clean.detail, 200);
    if (clean.target) clean.target = { role: cut(clean.target.role, 40), name: cut(clean.target.name, TEXT_LIMIT) };
    return this.locked((log) => {
      const last = log[log.length - 1];
      if (last && sameRead(last, clean)) log[log.length - 1] = { ...clean, times: (last.times ?? 1) + 1 };
      else log.push(clean);
    }).then(() => this.write());
  }

  list(): Promise<ActivityEntry[]> {
    return this.locked((log) => log.slice(Math.max(0, log.length - this.limit)));
  }

  /** Drops the entries older than cutoff (Unix ms): the organisation's retention (issue 44). */
  keepSince(cutoff: number): Promise<void> {
    return this.locked(async (log) => {
      const kept = log.filter((e) => e.at >= cutoff);
      if (kept.length === log.length) return;
      this.mem = kept;
      await this.kv.set({ [KEY_ACTIVITY]: kept });
    });
  }

  clear(): Promise<void> {
    return this.locked(async () => {
      this.mem = [];
      await this.kv.set({ [KEY_ACTIVITY]: [] });
    });
  }

  /**
   * The store's log changed (chrome.storage.onChanged): an empty list is
   * the options page's Clear, which the memory copy must follow, or the
   * next write would bring the entries back. The log's own writes are
   * never empty (its clear already emptied the copy).
   */
  stored(v: unknown): void {
    if (Array.isArray(v) && v.length === 0) void this.locked(() => void (this.mem = []));
  }
}

// ---- the pause ------------------------------------------------------------

export interface Pause {
  /** The whole profile: Stop in the popup or its keyboard shortcut. */
  paused: boolean;
  /** Unix milliseconds of the Stop. */
  since?: number;
  /** Tabs paused on their own (Chrome tab ids): a shared tab's Pause in the popup. */
  tabs?: number[];
}

export function normalizePause(v: unknown): Pause {
  const p = v as Partial<Pause> | undefined;
  const tabs = Array.isArray(p?.tabs) ? [...new Set(p.tabs.filter((t): t is number => Number.isInteger(t)))] : [];
  const out: Pause = p?.paused === true ? { paused: true } : { paused: false };
  if (out.paused && typeof p?.since === "number") out.since = p.since;
  if (tabs.length > 0) out.tabs = tabs;
  return out;
}

/** Whether the AI may not act in tabId: the profile or that tab is paused. */
export function pausedIn(p: Pause, tabId: number | undefined): "profile" | "tab" | undefined {
  if (p.paused) return "profile";
  if (tabId !== undefined && p.tabs?.includes(tabId)) return "tab";
  return undefined;
}

/** p with tabId paused on its own (or resumed). */
export function withTabPaused(p: Pause, tabId: number, paused: boolean): Pause {
  const tabs = (p.tabs ?? []).filter((t) => t !== tabId);
  if (paused) tabs.push(tabId);
  const { tabs: _old, ...rest } = p;
  return tabs.length > 0 ? { ...rest, tabs } : rest;
}

/** What a paused call answers (code paused): the AI should wait or ask. */
export const PAUSED_MESSAGE =
  "The person paused the AI in this browser profile (Stop in the monkbrowse popup), so this call was not run or was stopped. " +
  "Wait until they resume it, or ask them whether to go on; do not retry in a loop.";

/** What a call to a tab paused on its own answers (code paused). */
export const PAUSED_TAB_MESSAGE =
  "The person paused the AI in this tab (its Pause in the monkbrowse popup), so this call was not run or was stopped. " +
  "Wait until they resume it, or ask them whether to go on; do not retry in a loop.";

// ---- which app opened or last used a tab ----------------------------------

export interface TabApps {
  openedBy?: string;
  lastApp?: string;
}

export function normalizeTabApps(v: unknown): Record<string, TabApps> {
  if (!v || typeof v !== "object") return {};
  const out: Record<string, TabApps> = {};
  for (const [k, raw] of Object.entries(v as Record<string, unknown>)) {
    if (!raw || typeof raw !== "object") continue;
    const r = raw as Record<string, unknown>;
    const t: TabApps = {};
    if (typeof r.openedBy === "string") t.openedBy = r.openedBy;
    if (typeof r.lastApp === "string") t.lastApp = r.lastApp;
    out[k] = t;
  }
  return out;
}

// ---- tab groups per app ---------------------------------------------------

/** Chrome's tab group colours. */
export const GROUP_COLORS = ["blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange", "grey"] as const;
export type GroupColor = (typeof GROUP_COLORS)[number];

/** One colour per app name, the same every time. */
export function colorFor(app: string): GroupColor {
  let h = 0;
  for (const ch of app) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return GROUP_COLORS[h % GROUP_COLORS.length] ?? "blue";
}

/** The key of an app's group in one window (KEY_APP_GROUPS). */
export function groupKey(app: string, windowId: number): string {
  return `${windowId}\u0000${app}`;
}

// ---- the popup's lines ----------------------------------------------------

const OUTCOME_TEXT: Record<Outcome, string> = {
  done: "",
  error: " — failed",
  cancelled: " — cancelled",
  refused: " — refused",
  paused: " — paused",
};

/** One entry as a line for people: `Claude Code clicked button "Save" in tab 2`. */
export function describeEntry(e: ActivityEntry): string {
  let s = `${e.app} ${e.verb}`;
  // The page's words on one line: a role that is not a plain token and every name and text quoted and escaped.
  if (e.target) s += ` ${roleText(e.target.role)} ${quote(e.target.name)}`.replace(/ ""$/, "");
  if (e.text !== undefined) s += `: ${quote(e.text)}`;
  if (e.slot !== undefined) s += ` in tab ${e.slot}`;
  if (e.times !== undefined && e.times > 1) s += ` (${e.times} times)`;
  return s + OUTCOME_TEXT[e.outcome];
}
