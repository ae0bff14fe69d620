// The shared tabs (DESIGN §4): every change goes through one chain, so two
// quick toggles (or a toggle racing a tab close) never lose an update or
// hand out one slot twice; the shared ids are also kept in memory, so the
// navigation listener and the share gate can tell a shared tab at once
// (every millisecond lost there is lost to the page's own scripts).
// Storage and what a change sets off are behind SharesPort
// (entrypoints/background/shares.ts).

import { afterEither } from "../diag";
import type { Shares } from "../storage";

export interface SharesPort {
  /** The stored shares. */
  read(): Promise<Shares>;
  /** Stores the shares. */
  write(shares: Shares): Promise<void>;
  /** The shares changed from before to after (stored already); touchPages: shared tabs get the page side, unshared ones lose it. */
  changed(before: Shares, after: Shares, touchPages: boolean): void;
}

export class SharedTabs {
  private ids: Set<number> | undefined;
  private loading: Promise<Set<number>> | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly port: SharesPort) {}

  /** The shared tab ids, read from storage the first time (the worker just started). */
  load(): Promise<Set<number>> {
    if (this.ids) return Promise.resolve(this.ids);
    this.loading ??= this.port.read().then((s) => {
      this.ids ??= new Set(Object.keys(s).map(Number));
      return this.ids;
    });
    return this.loading;
  }

  /** The shared ids in memory, undefined until loaded. */
  get known(): ReadonlySet<number> | undefined {
    return this.ids;
  }

  /**
   * Takes tabId out of the shared ids in memory at once, before the stored
   * shares follow (update): the share gate refuses it from this moment (a
   * tab that went to a "never" site, issue 44).
   */
  drop(tabId: number): void {
    this.ids?.delete(tabId);
  }

  /** Whether tabId is shared, as far as memory knows (false until loaded). */
  has(tabId: number): boolean {
    return this.ids?.has(tabId) ?? false;
  }

  /**
   * Applies fn to the stored shares, one change at a time; the in-memory ids
   * are updated before anything else is done about a change.
   */
  update<T>(fn: (s: Shares) => { shares: Shares; out: T }, opts: { touchPages?: boolean } = {}): Promise<T> {
    const touchPages = opts.touchPages ?? true;
    const run = this.chain.then(async () => {
      const before = await this.port.read();
      const { shares, out } = fn(before);
      if (shares !== before) {
        this.ids = new Set(Object.keys(shares).map(Number));
        await this.port.write(shares);
        this.port.changed(before, shares, touchPages);
      }
      return out;
    });
    this.chain = afterEither(run);
    return run;
  }
}
