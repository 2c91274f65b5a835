import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What `mss sign` did for one output file, as far as it got: the source's digest, its upload, its attempt and job,
 * and the signed file's digest once written. A run that was interrupted picks up from here instead of signing again.
 */
export interface JournalEntry {
  /** The output's path inside the out directory (the entry's identity). */
  output: string;
  source_sha256: string;
  /** The resumable upload's session URL while its bytes are on their way. */
  upload_session?: string;
  upload_id?: string;
  /** Counts sign attempts: a failed job is asked again under a new idempotency key. */
  attempt: number;
  job_id?: string;
  /** The signed file's sha256, once it is in the out directory. */
  signed_sha256?: string;
}

export const JOURNAL_NAME = '.mss-journal.jsonl';

/**
 * An append-only JSON-lines journal in the out directory. Each line is an entry's state after a step, written
 * before the next step starts; the last line for an output wins. A line cut short by a kill is skipped.
 */
export class Journal {
  private readonly entries = new Map<string, JournalEntry>();
  readonly file: string;

  constructor(outDir: string) {
    this.file = path.join(outDir, JOURNAL_NAME);
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (typeof entry.output === 'string' && typeof entry.source_sha256 === 'string') this.entries.set(entry.output, entry);
      } catch {
        // an empty line, or the last one of a run that was killed while writing it
      }
    }
  }

  get(output: string): JournalEntry | undefined {
    return this.entries.get(output);
  }

  record(entry: JournalEntry): void {
    this.entries.set(entry.output, entry);
    // Synchronous and one line each: a line is either there whole or, cut short by a kill, ignored.
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }
}
