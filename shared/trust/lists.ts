import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

/**
 * The public trust lists the repository ships (trust/lists/) and their pins (trust/lists/pins.json): where each file
 * comes from, its SHA-256, and the list's own issue and next-update dates. A file that differs from its pin is refused.
 */

export const TRUST_LIST_NAMES = ['official', 'interim'] as const;
export type TrustListName = (typeof TRUST_LIST_NAMES)[number];

/** The folder shipped with the service (trust/lists at the repository root). */
export const SHIPPED_TRUST_LISTS_DIR = path.join(PROJECT_ROOT, 'trust/lists');
export const PINS_FILE = 'pins.json';

export type TrustListFileKind = 'claim_anchors' | 'tsa_anchors' | 'allowed_list' | 'eku_config' | 'lote_json';

interface ListFileSource {
  /** Path inside the lists folder. */
  file: string;
  url: string;
  kind: TrustListFileKind;
}

interface ListSource {
  source: string;
  licence: string;
  files: ListFileSource[];
  /** A frozen list has no next update; its dates are fixed here. */
  frozen?: string;
}

const OFFICIAL_BASE = 'https://raw.githubusercontent.com/c2pa-org/conformance-public/refs/heads/main/trust-list/';
const INTERIM_BASE = 'https://contentcredentials.org/trust/';

export const LIST_SOURCES: Record<TrustListName, ListSource> = {
  official: {
    source: 'c2pa-org/conformance-public, trust-list/',
    licence: 'CC-BY-4.0 (official/LICENSE)',
    files: [
      { file: 'official/C2PA-TRUST-LIST.pem', url: `${OFFICIAL_BASE}C2PA-TRUST-LIST.pem`, kind: 'claim_anchors' },
      { file: 'official/C2PA-TSA-TRUST-LIST.pem', url: `${OFFICIAL_BASE}C2PA-TSA-TRUST-LIST.pem`, kind: 'tsa_anchors' },
      { file: 'official/C2PA-TRUST-LIST.json', url: `${OFFICIAL_BASE}C2PA-TRUST-LIST.json`, kind: 'lote_json' },
      { file: 'official/C2PA-TSA-TRUST-LIST.json', url: `${OFFICIAL_BASE}C2PA-TSA-TRUST-LIST.json`, kind: 'lote_json' },
    ],
  },
  interim: {
    source: 'contentcredentials.org/trust (contentauth/c2pa-conformance-tool public/trust/, contentauth/verify-site static/trust/)',
    licence: 'Apache-2.0 (interim/LICENSE)',
    frozen: '2026-01-01',
    files: [
      { file: 'interim/anchors.pem', url: `${INTERIM_BASE}anchors.pem`, kind: 'claim_anchors' },
      { file: 'interim/allowed.pem', url: `${INTERIM_BASE}allowed.pem`, kind: 'allowed_list' },
      { file: 'interim/store.cfg', url: `${INTERIM_BASE}store.cfg`, kind: 'eku_config' },
    ],
  },
};

export interface ListPin {
  source: string;
  /** Commit or retrieval date of the copy pinned. */
  version: string;
  licence: string;
  /** The list's own dates (official: ListAndSchemeInformation of its JSON; interim: the freeze). */
  issued: string;
  next_update: string | null;
  files: Record<string, { url: string; sha256: string }>;
}

export interface Pins {
  lists: Record<TrustListName, ListPin>;
}

export class TrustListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrustListError';
  }
}

export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle (text between blocks, such as the official list's "Subject" lines, is skipped). */
export function parseCertificates(pem: string, file: string): X509Certificate[] {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  if (blocks.length === 0) throw new TrustListError(`${file}: no PEM certificate`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new TrustListError(`${file}: certificate ${i + 1} does not parse (${(err as Error).message})`);
    }
  });
}

/** ListIssueDateTime and NextUpdate of an ETSI TS 119 602 list (the official JSON). */
export function loteDates(json: string, file: string): { issued: string; next_update: string } {
  let info: { ListIssueDateTime?: unknown; NextUpdate?: unknown } | undefined;
  try {
    info = (JSON.parse(json) as { LoTE?: { ListAndSchemeInformation?: typeof info } }).LoTE?.ListAndSchemeInformation;
  } catch (err) {
    throw new TrustListError(`${file}: not JSON (${(err as Error).message})`);
  }
  const issued = info?.ListIssueDateTime;
  const next = info?.NextUpdate;
  if (typeof issued !== 'string' || typeof next !== 'string' || Number.isNaN(Date.parse(issued)) || Number.isNaN(Date.parse(next))) {
    throw new TrustListError(`${file}: no ListAndSchemeInformation ListIssueDateTime / NextUpdate`);
  }
  return { issued, next_update: next };
}

/** Checks that a list file holds what its kind needs; used before pinning a new copy. */
export function checkListFile(kind: TrustListFileKind, text: string, file: string): void {
  if (kind === 'lote_json') loteDates(text, file);
  else if (kind === 'eku_config') {
    const oids = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('//'));
    if (oids.length === 0 || !oids.every((o) => /^\d+(\.\d+)+$/.test(o))) throw new TrustListError(`${file}: not a list of EKU OIDs`);
  } else parseCertificates(text, file);
}

export function readPins(dir: string): Pins {
  const file = path.join(dir, PINS_FILE);
  let pins: Pins;
  try {
    pins = JSON.parse(readFileSync(file, 'utf8')) as Pins;
  } catch (err) {
    throw new TrustListError(`${file}: cannot read the trust list pins (${(err as Error).message})`);
  }
  for (const name of TRUST_LIST_NAMES) {
    if (!pins.lists?.[name]?.files) throw new TrustListError(`${file}: no pin for the ${name} list`);
  }
  return pins;
}

/** The pinned files of one list, each checked against its SHA-256; a mismatch throws. */
export function readPinnedList(dir: string, pin: ListPin, name: TrustListName): Map<string, string> {
  const texts = new Map<string, string>();
  for (const { file } of LIST_SOURCES[name].files) {
    const expected = pin.files[file]?.sha256;
    if (!expected) throw new TrustListError(`${name} trust list: ${file} has no pin`);
    const bytes = readFileSync(path.join(dir, file));
    const actual = sha256Hex(bytes);
    if (actual !== expected) {
      throw new TrustListError(`${name} trust list: ${file} has SHA-256 ${actual}, pinned ${expected}; refusing it (run \`npm run trust -- update\` to pin a new copy)`);
    }
    texts.set(file, bytes.toString('utf8'));
  }
  return texts;
}
