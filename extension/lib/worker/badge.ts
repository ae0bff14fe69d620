// The toolbar icon (issue 28, DESIGN §7.1): one badge per tab by
// precedence (a rejected connection's "!", a tab's own pause "II", the
// profile's "II", the AI asking "?", acting "AI", the person pointing "◉")
// and the titles that go with them, set one change at a time. chrome.action
// and the pause are behind BadgePort (entrypoints/background/steer.ts).

import { afterEither, report, reported } from "../diag";

/** The part of chrome.action the badges use (promise forms). */
export interface ActionApi {
  getTitle(d: { tabId?: number }): Promise<string>;
  setTitle(d: { tabId?: number; title: string }): Promise<void>;
  getBadgeText(d: { tabId?: number }): Promise<string>;
  /** text null: the tab shows the global badge again. */
  setBadgeText(d: { tabId?: number; text: string | null }): Promise<void>;
  setBadgeBackgroundColor(d: { tabId?: number; color: string }): Promise<void>;
}

export interface BadgePort {
  action: ActionApi;
  /** Whether the profile is stopped. */
  paused(): boolean;
  /** The tabs stopped on their own. */
  pausedTabs(): number[];
}

/** The least time the acting badge stays up, so a fast call does not flicker. */
export const ACTING_MIN_MS = 300;

export interface Badges {
  /** Whether the connection badge says rejected ("!" wins over the pause), and the toolbar title the connection's state gives. */
  noteConnection(rejected: boolean, title: string): void;
  /** The tab's badge says the person showed the AI something ("◉") until the AI reads it. */
  setPointedBadge(tabId: number, on: boolean): Promise<void>;
  /** The tab's badge says the AI asks the person something ("?"). */
  setAskBadge(tabId: number, on: boolean): Promise<void>;
  /** The tab's badge says the person records what they do there ("REC", issue 42). */
  setRecordingBadge(tabId: number, on: boolean): Promise<void>;
  /** The AI acts in tabId until the returned function is called (and at least ACTING_MIN_MS). */
  actingIn(tabId: number, app: string): () => void;
  /** The worker just started: clears the "AI" badges the last worker left. */
  sweepActingBadges(tabIds: number[]): Promise<void>;
  /** The tab is gone: whatever its badge said goes with it (no timer left). */
  forgetTabBadge(tabId: number): void;
  /** Shows the pause (and the connection's title) on the icon and every tab's badge. */
  showPauseBadge(): Promise<void>;
}

/** The toolbar badges, through port. */
export function createBadges(port: BadgePort): Badges {
  let rejected = false;
  /** undefined until offscreen.ts tells it (a restarted worker: Chrome still shows the last one). */
  let connectionTitle: string | undefined;
  /**
   * offscreen.ts: whether the connection badge says rejected ("!" wins over the
   * pause), and the toolbar title the connection's state gives.
   */
  function noteConnection(r: boolean, title: string): void {
    rejected = r;
    connectionTitle = title;
  }

  const PAUSED_TITLE = "monkbrowse: the AI is paused in this profile (open to resume)";

  /** The toolbar title every tab without its own shows: the pause's, else the connection's. */
  async function globalTitle(): Promise<string> {
    if (!rejected && port.paused()) return PAUSED_TITLE;
    if (connectionTitle !== undefined) return connectionTitle;
    const shown = await port.action.getTitle({});
    return shown === PAUSED_TITLE ? "monkbrowse" : shown;
  }

  /**
   * Tabs whose own title was set back to the global one. Chrome clears a
   * tab's own badge text with null but refuses null for its title (setTitle
   * throws "Missing required property 'title'"), so a tab's title is
   * "cleared" by giving it the global title, kept equal to it as that
   * changes (showPauseBadge).
   */
  const resetTitles = new Set<number>();

  /** The tab shows the global badge again (its own text unset) and the global title. */
  async function clearTabBadge(tabId: number): Promise<void> {
    await port.action.setBadgeText({ tabId, text: null });
    await port.action.setTitle({ tabId, title: await globalTitle() });
    resetTitles.add(tabId);
  }

  /** A tab gets a title of its own (no longer kept equal to the global one). */
  function ownTitle(tabId: number): void {
    resetTitles.delete(tabId);
  }


  /** What one tab's own badge shows (undefined: the global badge). */
  interface TabBadge {
    text: string;
    color: string;
    title: string;
  }

  const ACTING_COLOR = "#1a73e8";
  const POINTED_COLOR = "#1a73e8";
  const POINTED_TEXT = "◉";
  const ASK_COLOR = "#e37400";
const RECORDING_COLOR = "#c5221f";
  const ASK_TEXT = "?";
  const PAUSED_COLOR = "#a05a00";

  /** Tabs the AI acts in now: running calls, their app, since when, and the timer that holds the badge for ACTING_MIN_MS. */
  interface Acting {
    calls: number;
    app: string;
    since: number;
    hold?: ReturnType<typeof setTimeout>;
  }
  const acting = new Map<number, Acting>();

  /** The badge set on each tab now (text and title), so unchanged tabs cost nothing. */
  const applied = new Map<number, string>();

  /**
   * A tab's own badge, by precedence (DECISIONS "One badge precedence"): a
   * rejected connection's global "!" shows on every tab (a tab's badge would
   * hide it); then the tab the person records ("REC"); then a tab paused
   * on its own ("II"); then the profile's global
   * "II" (Stop); only then the AI acting in the tab ("AI").
   */
  function wantedBadge(tabId: number): TabBadge | undefined {
    if (rejected) return undefined;
    // The person records what they do here (issue 42): shown above the pauses,
    // so that a recording is never under way unseen.
    if (recording.has(tabId)) return { text: "REC", color: RECORDING_COLOR, title: "monkbrowse: recording what you do in this tab (open this to stop)" };
    if (port.pausedTabs().includes(tabId)) return { text: "II", color: PAUSED_COLOR, title: "monkbrowse: the AI is paused in this tab (open to resume)" };
    if (port.paused()) return undefined;
    // Above "AI": the AI's call waits in the tab meanwhile.
    if (asking.has(tabId)) return { text: ASK_TEXT, color: ASK_COLOR, title: "monkbrowse: the AI asks you something in this tab — open this to read it and answer" };
    const a = acting.get(tabId);
    if (a) return { text: "AI", color: ACTING_COLOR, title: `monkbrowse: ${a.app} is acting in this tab` };
    if (pointed.has(tabId)) return { text: POINTED_TEXT, color: POINTED_COLOR, title: "monkbrowse: you showed the AI something in this tab (it reads it with browser_get_selection)" };
    return undefined;
  }

  /** Tabs where the person pointed at something the AI has not read yet (person.ts). */
  const pointed = new Set<number>();

  /**
   * The tab's badge says the person showed the AI something ("◉") until the
   * AI reads it, below the pause's and the acting badge: it shows again when
   * the AI's call in the tab ends.
   */
  async function setPointedBadge(tabId: number, on: boolean): Promise<void> {
    if (on) pointed.add(tabId);
    else pointed.delete(tabId);
    await syncTabBadges();
  }

  /** The tab being recorded (background/recording.ts). */
  const recording = new Set<number>();

  /** The tab's badge says it is recording ("REC"), above the pauses. */
  async function setRecordingBadge(tabId: number, on: boolean): Promise<void> {
    if (on) recording.add(tabId);
    else recording.delete(tabId);
    revisit.add(tabId);
    await syncTabBadges();
  }

  /** Tabs with a pending request to the person (browser_ask_user; ask.ts). */
  const asking = new Set<number>();
  /** Tabs whose badge is set again even when it seems applied (a restarted worker knows none it set). */
  const revisit = new Set<number>();

  /**
   * The tab's badge says the AI asks the person something ("?"; the message
   * and Done/Decline are in the popup only, issue 40), below the pause's.
   */
  async function setAskBadge(tabId: number, on: boolean): Promise<void> {
    if (on) asking.add(tabId);
    else asking.delete(tabId);
    revisit.add(tabId);
    await syncTabBadges();
  }

  let badgeChain: Promise<unknown> = Promise.resolve();

  /** Brings every tab's own badge to what wantedBadge says, one change at a time. */
  function syncTabBadges(): Promise<void> {
    const run = badgeChain.then(async () => {
      const again = new Set(revisit);
      revisit.clear();
      for (const id of new Set([...applied.keys(), ...port.pausedTabs(), ...acting.keys(), ...pointed, ...asking, ...recording, ...again])) {
        const want = wantedBadge(id);
        if (!again.has(id) && applied.get(id) === (want && `${want.text}\u0000${want.title}`)) continue;
        if (!want) {
          applied.delete(id);
          // The tab shows the global badge and title again. The tab may be gone.
          await clearTabBadge(id).catch(reported("badge: clearing a tab's badge"));
          continue;
        }
        try {
          ownTitle(id);
          await port.action.setBadgeText({ tabId: id, text: want.text });
          await port.action.setBadgeBackgroundColor({ tabId: id, color: want.color });
          await port.action.setTitle({ tabId: id, title: want.title });
          applied.set(id, `${want.text}\u0000${want.title}`);
        } catch (e) {
          report("badge: showing a tab's badge", e); // a tab closed meanwhile
        }
      }
    });
    badgeChain = afterEither(run);
    return run;
  }

  /**
   * The AI starts acting in tabId (a call reached the extension): its badge
   * says so until the returned function is called (however the call ends),
   * and at least ACTING_MIN_MS. Nothing is awaited: the call is not held up.
   */
  function actingIn(tabId: number, app: string): () => void {
    let a = acting.get(tabId);
    if (a) {
      clearTimeout(a.hold);
      a.hold = undefined;
      a.app = app;
    } else {
      a = { calls: 0, app, since: Date.now() };
      acting.set(tabId, a);
      void syncTabBadges();
    }
    a.calls++;
    const mine = a;
    let ended = false;
    return () => {
      if (ended || acting.get(tabId) !== mine) return; // ended already, or the tab was closed
      ended = true;
      if (--mine.calls > 0) return;
      const left = mine.since + ACTING_MIN_MS - Date.now();
      const drop = () => {
        if (acting.get(tabId) !== mine || mine.calls > 0) return;
        acting.delete(tabId);
        void syncTabBadges();
      };
      if (left <= 0) drop();
      else mine.hold = setTimeout(drop, left);
    };
  }

  /**
   * The worker just started: a tab whose badge still says "AI" lost its call
   * with the last worker (Chrome keeps a tab's badge, this worker's memory
   * does not), so it is cleared. tabIds: the tabs a call may have used.
   */
  async function sweepActingBadges(tabIds: number[]): Promise<void> {
    for (const id of tabIds) {
      if (acting.has(id) || applied.has(id)) continue;
      const text = await port.action.getBadgeText({ tabId: id }).catch(reported("badge: reading a tab's badge"));
      if (text === "AI") applied.set(id, "from the last worker");
      // Still unread when the last worker stopped (its pointing is kept in storage.session).
      if (text === POINTED_TEXT) pointed.add(id);
    }
    await syncTabBadges();
  }

  /** The tab is gone: whatever its badge said goes with it (no timer left). */
  function forgetTabBadge(tabId: number): void {
    clearTimeout(acting.get(tabId)?.hold);
    acting.delete(tabId);
    applied.delete(tabId);
    resetTitles.delete(tabId);
    pointed.delete(tabId);
  }

  /**
   * The toolbar icon says the AI is paused ("II", amber): for the whole
   * profile on the global badge, for a tab paused on its own on that tab's
   * badge; unless a rejected connection's "!" is shown, which a tab's badge
   * would hide. Tabs the AI acts in say "AI" when nothing above applies.
   */
  async function showPauseBadge(): Promise<void> {
    await syncTabBadges();
    const title = await globalTitle();
    await port.action.setTitle({ title });
    for (const id of resetTitles) {
      await port.action.setTitle({ tabId: id, title }).catch(() => resetTitles.delete(id)); // the tab is gone
    }
    if (rejected) return;
    if (port.paused()) {
      await port.action.setBadgeText({ text: "II" });
      await port.action.setBadgeBackgroundColor({ color: PAUSED_COLOR });
    } else {
      await port.action.setBadgeText({ text: "" });
      await port.action.setBadgeBackgroundColor({ color: "#6b6b6b" });
    }
  }

  return { noteConnection, setPointedBadge, setAskBadge, setRecordingBadge, actingIn, sweepActingBadges, forgetTabBadge, showPauseBadge };
}
