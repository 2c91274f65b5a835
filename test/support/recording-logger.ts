import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface Entry {
  level: 'info' | 'warn' | 'error' | 'fatal';
  obj: Record<string, unknown>;
  msg: string;
}

/** pino's level numbers, by the names entries carry. */
const LEVELS: Record<number, Entry['level']> = { 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

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

  /**
   * A real pino logger (what the API and its request logging take) whose lines, from info up, are recorded here: each
   * with its level's name, its message and its other fields (child bindings included).
   */
  pino(): Logger {
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const { level, msg, ...obj } = JSON.parse(line) as { level: number; msg: string } & Record<string, unknown>;
          this.add(LEVELS[level] ?? 'fatal', obj, msg);
        }
        done();
      },
    });
    return pino({ level: 'info' }, sink);
  }

  /** Settles on the next entry that matches, ignoring those already recorded. */
  next(match: (e: Entry) => boolean): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Settles at once if a matching entry was recorded, else on the next one. */
  logged(match: (e: Entry) => boolean): Promise<void> {
    return this.entries.some(match) ? Promise.resolve() : this.next(match);
  }
}
