/** What `mss sign` reports as it goes, on stderr: a redrawn bar on a terminal, plain lines otherwise. */
export class Progress {
  private done = 0;
  private failed = 0;
  private bytesDone = 0;
  /** Files being uploaded, and the bytes of each the service has. */
  private readonly sending = new Map<string, number>();
  /** The bar as last drawn: uploads report every slice they read, and only a change is drawn. */
  private drawn = '';
  private readonly tty: boolean;

  constructor(
    private readonly total: number,
    private readonly totalBytes: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = stream.isTTY === true;
    this.draw();
  }

  /** Bytes of a file the service has so far, as its upload goes (a resumed upload starts at what was there). */
  sent(name: string, bytes: number): void {
    const previous = this.bytesUploaded();
    this.sending.set(name, bytes);
    if (this.tty) {
      this.draw();
      return;
    }
    // Off a terminal, a line at every quarter of the whole run's bytes: enough to see it move, not a flood.
    const quarter = this.totalBytes / 4;
    const now = this.bytesUploaded();
    if (quarter > 0 && Math.floor(now / quarter) > Math.floor(previous / quarter)) {
      this.stream.write(`uploaded ${formatBytes(now)} of ${formatBytes(this.totalBytes)}\n`);
    }
  }

  /** A file finished: signed now, signed by an earlier run, or failed (with why). */
  finished(name: string, bytes: number, outcome: 'signed' | 'skipped' | 'failed', detail = ''): void {
    this.sending.delete(name);
    this.done += 1;
    this.bytesDone += bytes;
    if (outcome === 'failed') this.failed += 1;
    const word = outcome === 'skipped' ? 'already signed' : outcome;
    this.line(`${word} ${this.done}/${this.total} ${name}${detail ? `: ${detail}` : ''}`);
  }

  /** Clears the bar so that what follows starts on a clean line. */
  end(): void {
    if (this.tty) this.stream.write('\r\x1b[K');
    this.drawn = '';
  }

  private line(text: string): void {
    if (this.tty) {
      // Failures stay on screen above the bar; successes only move the bar.
      if (text.startsWith('failed')) {
        this.stream.write(`\r\x1b[K${text}\n`);
        this.drawn = '';
      }
      this.draw();
    } else {
      this.stream.write(`${text}\n`);
    }
  }

  /** Bytes of finished files and of those on their way. */
  private bytesUploaded(): number {
    let n = this.bytesDone;
    for (const bytes of this.sending.values()) n += bytes;
    return n;
  }

  private draw(): void {
    if (!this.tty) return;
    const width = 24;
    const filled = this.total === 0 ? width : Math.round((this.done / this.total) * width);
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    const failures = this.failed > 0 ? `, ${this.failed} failed` : '';
    const text = `[${bar}] ${this.done}/${this.total} files, ${formatBytes(this.bytesUploaded())} of ${formatBytes(this.totalBytes)}${failures}`;
    if (text === this.drawn) return;
    this.drawn = text;
    this.stream.write(`\r\x1b[K${text}`);
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
