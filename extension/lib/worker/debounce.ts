// A call debounced: run wait ms after the last request, but never held back
// more than maxWait ms from the first while requests keep coming (the
// service worker's tabs_changed push).

export class Debounce {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firstPending: number | undefined;

  constructor(
    private readonly fn: () => void,
    private readonly wait: number,
    private readonly maxWait: number,
  ) {}

  /** Asks for a run. */
  schedule(): void {
    const now = Date.now();
    this.firstPending ??= now;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.wait, this.firstPending + this.maxWait - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.firstPending = undefined;
      this.fn();
    }, wait);
  }
}
