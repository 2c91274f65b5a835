/** Which cache keys hold an answer for a serial, so that a revocation finds every one of them. */
export class SerialIndex {
  private readonly keysBySerial = new Map<string, Set<string>>();

  add(key: string, serials: readonly string[]): void {
    for (const serial of serials) {
      let keys = this.keysBySerial.get(serial);
      if (!keys) this.keysBySerial.set(serial, (keys = new Set()));
      keys.add(key);
    }
  }

  remove(key: string, serials: readonly string[]): void {
    for (const serial of serials) {
      const keys = this.keysBySerial.get(serial);
      keys?.delete(key);
      if (keys?.size === 0) this.keysBySerial.delete(serial);
    }
  }

  /** The keys of a serial, as a copy (the caller may remove them meanwhile). */
  keysOf(serial: string): string[] {
    return [...(this.keysBySerial.get(serial) ?? [])];
  }

  clear(): void {
    this.keysBySerial.clear();
  }
}
