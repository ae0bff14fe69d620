// The diagnostics log (issue 31): failures the extension goes on without
// (a debugger command refused, an injection that failed, a message that
// found no receiver) are written here instead of being swallowed. It keeps
// the last DIAG_MAX entries (time, where, what failed), never page data:
// `where` is a fixed label from our code and the message is the error's own
// text, addresses replaced by <url>, cut to MESSAGE_MAX characters. The service worker keeps the log in
// chrome.storage.session (it survives the worker sleeping, not a browser
// restart); the options page shows it (Diagnostics) with copy and clear.
// Contexts without storage (content scripts, the offscreen document) send
// their entries to the service worker ("diag" message).

/** One failure. */
export interface DiagEntry {
  /** When, in ms since the epoch. */
  t: number;
  /** Where in our code: a fixed label such as "debugger: Network.enable". */
  where: string;
  /** What failed: the error's message, at most MESSAGE_MAX characters. */
  message: string;
}

/** The entries kept: the oldest go first. */
export const DIAG_MAX = 200;
/** chrome.storage.session key of the log (an array of DiagEntry, oldest first). */
export const DIAG_KEY = "diagnostics";
export const MESSAGE_MAX = 300;
export const WHERE_MAX = 80;

function cut(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

/** The message of an error of any shape, without its stack. */
export function describeError(err: unknown): string {
  let s: string;
  if (err instanceof Error) s = err.name && err.name !== "Error" ? `${err.name}: ${err.message}` : err.message;
  else if (typeof err === "string") s = err;
  else {
    try {
      s = JSON.stringify(err) ?? String(err);
    } catch {
      // a cyclic or exotic value: its plain form says enough
      s = String(err);
    }
  }
  // Chrome's messages may name a page's address: the log keeps none.
  s = s.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi, "<url>");
  return cut(s.replace(/\s+/g, " ").trim() || "(no message)", MESSAGE_MAX);
}

/** An entry from untrusted parts (a "diag" message): bounded again. */
export function entry(where: string, message: string, t: number): DiagEntry {
  return { t, where: cut(String(where), WHERE_MAX), message: cut(String(message), MESSAGE_MAX) };
}

/** Where the log lives: chrome.storage.session in the service worker, memory in tests. */
export interface DiagStore {
  get(): Promise<DiagEntry[]>;
  set(entries: DiagEntry[]): Promise<void>;
}

export function memoryStore(): DiagStore & { entries: DiagEntry[] } {
  const s = {
    entries: [] as DiagEntry[],
    get: async () => s.entries.slice(),
    set: async (e: DiagEntry[]) => {
      s.entries = e.slice();
    },
  };
  return s;
}

/**
 * The log over a store. Writes are chained, so entries added together are
 * all kept, in order. add never rejects: a log that cannot be written falls
 * back to console.warn (the service worker's console).
 */
export class DiagLog {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: DiagStore,
    private readonly max = DIAG_MAX,
  ) {}

  add(e: DiagEntry): Promise<void> {
    this.chain = this.chain.then(async () => {
      try {
        const all = await this.store.get();
        all.push(e);
        await this.store.set(all.slice(-this.max));
      } catch (err) {
        console.warn(`monkbrowse diagnostics: could not record "${e.where}: ${e.message}":`, err);
      }
    });
    return this.chain;
  }

  list(): Promise<DiagEntry[]> {
    return this.chain.then(() => this.store.get());
  }

  clear(): Promise<void> {
    this.chain = this.chain.then(() => this.store.set([]));
    return this.chain;
  }
}

/** Where this context's reports go; set once by its entrypoint. */
export type DiagSink = (e: DiagEntry) => void;

// Until an entrypoint sets a sink (and in the page's own world, which has
// none), reports stay in a small ring in memory, readable with recent().
const fallback: DiagEntry[] = [];
let sink: DiagSink = (e) => {
  fallback.push(e);
  if (fallback.length > DIAG_MAX) fallback.shift();
};

/** Sets where this context's reports go, handing it what was reported before. */
export function setDiagSink(s: DiagSink): void {
  sink = s;
  for (const e of fallback.splice(0)) deliver(e);
}

/** What was reported while no sink was set (or its sink could not deliver). */
export function recent(): DiagEntry[] {
  return fallback.slice();
}

/** Keeps e in this context's memory ring (a sink that could not deliver it). */
export function keepInMemory(e: DiagEntry): void {
  fallback.push(e);
  if (fallback.length > DIAG_MAX) fallback.shift();
}

function deliver(e: DiagEntry): void {
  try {
    sink(e);
  } catch (sinkErr) {
    keepInMemory(e);
    keepInMemory(entry("diagnostics", describeError(sinkErr), Date.now()));
  }
}

/** Records a failure the extension goes on without. Never throws. */
export function report(where: string, err: unknown): void {
  deliver(entry(where, describeError(err), Date.now()));
}

/** A rejection handler that reports: `p.catch(reported("debugger: Network.enable"))`. */
export function reported(where: string): (err: unknown) => undefined {
  return (err) => {
    report(where, err);
    return undefined;
  };
}

/**
 * A link of a promise chain that waits for p, fulfilled or rejected, and
 * never rejects: p's caller gets p's own outcome (and reports it or passes
 * it on), the chain only keeps the order.
 */
export function afterEither(p: Promise<unknown>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined, // silent: p's rejection reaches p's own caller; the chain only orders
  );
}

/** The log as text, for the options page's Copy (one line an entry). */
export function formatDiag(entries: readonly DiagEntry[]): string {
  return entries.map((e) => `${new Date(e.t).toISOString()}  ${e.where}: ${e.message}`).join("\n");
}
