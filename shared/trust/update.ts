import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkListFile, LIST_SOURCES, loteDates, PINS_FILE, sha256Hex, TRUST_LIST_NAMES, TrustListError, type ListPin, type Pins, type TrustListName } from './lists.js';

export interface UpdateOptions {
  /** The lists folder to rewrite (files and pins.json). */
  dir: string;
  /** Take the files from this folder (DIR/<file name> or DIR/<list>/<file name>) instead of their published URLs. */
  from?: string;
  /** Version recorded in the pins (commit or date); default: today's date. */
  version?: string;
  fetchFile?: (url: string) => Promise<Uint8Array>;
  now?: Date;
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000), redirect: 'follow' });
  if (!res.ok) throw new TrustListError(`${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

function readFrom(from: string, file: string): Uint8Array {
  const candidates = [path.join(from, file), path.join(from, path.basename(file))];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new TrustListError(`${file}: not found in ${from}`);
  return readFileSync(found);
}

/** Writes atomically, so a running store never reads half a file. */
function writeAtomic(file: string, bytes: Uint8Array | string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

/**
 * Fetches (or copies) every list file, checks that each parses (certificates, the LoTE dates, the EKU OIDs), then
 * writes the files and, last, the new pins. Nothing is written unless every file passed.
 */
export async function updateTrustLists(options: UpdateOptions): Promise<{ pins: Pins; changed: string[] }> {
  const now = options.now ?? new Date();
  const version = options.version ?? (options.from ? `copied from ${path.resolve(options.from)} on ${now.toISOString().slice(0, 10)}` : `fetched ${now.toISOString().slice(0, 10)}`);
  const fetchFile = options.fetchFile ?? fetchBytes;
  const fresh = new Map<string, Uint8Array>();
  const lists = {} as Record<TrustListName, ListPin>;
  for (const name of TRUST_LIST_NAMES) {
    const source = LIST_SOURCES[name];
    const files: ListPin['files'] = {};
    let dates: { issued: string; next_update: string | null } = { issued: source.frozen ?? '', next_update: null };
    for (const { file, url, kind } of source.files) {
      const bytes = options.from ? readFrom(options.from, file) : await fetchFile(url);
      const text = Buffer.from(bytes).toString('utf8');
      checkListFile(kind, text, file);
      if (kind === 'lote_json' && file.endsWith('C2PA-TRUST-LIST.json')) dates = loteDates(text, file);
      fresh.set(file, bytes);
      files[file] = { url, sha256: sha256Hex(bytes) };
    }
    lists[name] = { source: source.source, version, licence: source.licence, ...dates, files };
  }
  const changed: string[] = [];
  for (const [file, bytes] of fresh) {
    const target = path.join(options.dir, file);
    if (existsSync(target) && sha256Hex(readFileSync(target)) === sha256Hex(bytes)) continue;
    writeAtomic(target, bytes);
    changed.push(file);
  }
  const pins: Pins = { lists };
  writeAtomic(path.join(options.dir, PINS_FILE), `${JSON.stringify(pins, null, 2)}\n`);
  return { pins, changed };
}
