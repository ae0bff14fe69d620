// The person's Stop (issue 28, DESIGN §7.1): the AI paused in the whole
// profile or in one tab, kept in the service worker's memory and stored so
// a restarted worker stays paused. Storage, the server and the badge are
// behind PausePort (entrypoints/background/steer.ts wires them); the
// exec module's gate (exec.ts) asks pausedFor.

import { CodedError } from "../peer";
import { ERROR_CODES } from "../protocol.gen";
import { PAUSED_MESSAGE, PAUSED_TAB_MESSAGE, normalizePause, pausedIn, withTabPaused, type Pause } from "../activity";

export interface PausePort {
  /** The stored pause, as stored (normalized here). */
  load(): Promise<unknown>;
  /** Stores the pause (the popup renders from storage). */
  save(p: Pause): Promise<void>;
  /** Shows the pause on the toolbar icon. */
  show(): Promise<void>;
}

/** The refusal of a call while the profile is stopped. */
export function pausedError(): CodedError {
  return new CodedError(ERROR_CODES.paused, PAUSED_MESSAGE);
}

export class PauseState {
  private pause: Pause = { paused: false };
  private loading: Promise<void> | undefined;
  /** The server hears the new pause (tabs_changed, at once). */
  private told: () => Promise<void> = async () => undefined;

  constructor(
    private readonly port: PausePort,
    private readonly now: () => number = Date.now,
  ) {}

  /** Loads the stored pause once (the worker just started). */
  load(): Promise<void> {
    this.loading ??= this.port.load().then((v) => {
      this.pause = normalizePause(v);
    });
    return this.loading;
  }

  /** calls.ts: tell the server at once (tabs_changed carries the pause). */
  onChanged(fn: () => Promise<void>): void {
    this.told = fn;
  }

  /** Whether the whole profile is stopped. */
  get paused(): boolean {
    return this.pause.paused;
  }

  /** The tabs paused on their own. */
  tabs(): number[] {
    return this.pause.tabs ?? [];
  }

  /** Why a request on tabId may not run now (the profile or that tab is paused), or undefined. */
  pausedFor(tabId: number | undefined): CodedError | undefined {
    switch (pausedIn(this.pause, tabId)) {
      case "profile":
        return pausedError();
      case "tab":
        return new CodedError(ERROR_CODES.paused, PAUSED_TAB_MESSAGE);
    }
    return undefined;
  }

  /** Stop (paused) or Resume the whole profile; stored so a restarted worker stays paused. */
  async setPaused(paused: boolean): Promise<void> {
    await this.load();
    const { tabs } = this.pause;
    const next: Pause = paused ? { paused: true, since: this.now() } : { paused: false };
    if (tabs) next.tabs = tabs;
    await this.save(next);
  }

  /** Pause (or resume) the AI in one tab only. */
  async setTabPaused(tabId: number, paused: boolean): Promise<void> {
    await this.load();
    await this.save(withTabPaused(this.pause, tabId, paused));
  }

  /** The tab is gone: its own pause goes with it (false: it had none). */
  forgetTab(tabId: number): Promise<void> | undefined {
    if (!this.pause.tabs?.includes(tabId)) return undefined;
    return this.setTabPaused(tabId, false);
  }

  // The server is told before the popup (which renders from storage) shows
  // the new state: once the person sees "Resume" take effect, a call the AI
  // sends next is not refused by a server that has not heard it yet.
  private async save(next: Pause): Promise<void> {
    this.pause = next;
    await this.told();
    await this.port.save(this.pause);
    await this.port.show();
  }
}
