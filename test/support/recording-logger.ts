export interface Entry {
  level: 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg: string;
}

/** A logger that records entries and lets a test wait for one. */
export class RecordingLogger {
  readonly entries: Entry[] = [];
  private waiters: Array<{ match: (e: Entry) => boolean; resolve: () => void }> = [];
  private add(level: Entry['level'], obj: Record<string, unknown>, msg: string) {
    const e = { level, obj, msg };
    this.entries.push(e);
    this.waiters = this.waiters.filter((w) => (w.match(e) ? (w.resolve(), false) : true));
  }
  info = (obj: Record<string, unknown>, msg: string) => this.add('info', obj, msg);
  warn = (obj: Record<string, unknown>, msg: string) => this.add('warn', obj, msg);
  error = (obj: Record<string, unknown>, msg: string) => this.add('error', obj, msg);

  /** Settles on the next entry that matches, ignoring those already recorded. */
  next(match: (e: Entry) => boolean): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Settles at once if a matching entry was recorded, else on the next one. */
  logged(match: (e: Entry) => boolean): Promise<void> {
    return this.entries.some(match) ? Promise.resolve() : this.next(match);
  }
}
