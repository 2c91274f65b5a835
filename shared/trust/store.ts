import type { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { ServiceError } from '../errors.js';
import { LIST_SOURCES, parseCertificates, PINS_FILE, readPinnedList, readPins, SHIPPED_TRUST_LISTS_DIR, type ListPin, type Pins, type TrustListName } from './lists.js';

/** Who vouches for a certificate the store holds. */
export type TrustSource = 'c2pa_trust_list' | 'interim_trust_list' | 'service_ca' | 'operator_anchor' | 'operator_allowed' | 'organisation_anchor';

export interface Anchor {
  pem: string;
  certificate: X509Certificate;
  source: TrustSource;
}

/**
 * The anchors the pinned lists and the operator's files give (the service's own roots come from its database and are
 * added per verification), each for what its list vouches for. Claim signers chain to `claimAnchors` (the C2PA Trust
 * List, the interim anchors, TRUST_ANCHORS_FILE) or are one of `allowed` (the interim list's end-entity certificates,
 * TRUST_ALLOWED_FILE); timestamps chain to `tsaAnchors` (the C2PA TSA Trust List, the interim anchors,
 * TRUST_ANCHORS_FILE, TRUST_TSA_ANCHORS_FILE).
 */
export interface TrustStore {
  lists: readonly TrustListName[];
  pins: Pins;
  claimAnchors: Anchor[];
  allowed: Anchor[];
  tsaAnchors: Anchor[];
  /** Anchors for CAWG identity assertions only (CAWG_TRUST_ANCHORS_FILE); the service's roots are added per verification. */
  cawgAnchors: Anchor[];
  /** The accepted EKU OIDs (interim store.cfg), when the interim list is on. */
  ekuConfig: string | undefined;
}

export interface TrustStoreOptions {
  /** TRUST_LISTS: the lists that apply. */
  trustLists: readonly TrustListName[];
  /** TRUST_ANCHORS_FILE: the operator's own anchors (PEM), trusted for claim signers and timestamps. */
  trustAnchorsFile: string | undefined;
  /** TRUST_ALLOWED_FILE: the operator's end-entity claim-signing certificates (PEM), trusted one by one. */
  trustAllowedFile?: string | undefined;
  /** TRUST_TSA_ANCHORS_FILE: the operator's anchors (PEM) for timestamps only. */
  trustTsaAnchorsFile?: string | undefined;
  /** CAWG_TRUST_ANCHORS_FILE: the operator's anchors (PEM) for people's identity certificates only. */
  cawgTrustAnchorsFile?: string | undefined;
  /** The lists folder (default: the one shipped in trust/lists). */
  dir?: string;
}

const SOURCE_OF_LIST: Record<TrustListName, TrustSource> = { official: 'c2pa_trust_list', interim: 'interim_trust_list' };

function anchorsOf(text: string, file: string, source: TrustSource): Anchor[] {
  return parseCertificates(text, file).map((certificate) => ({ certificate, pem: certificate.toString(), source }));
}

function fileOf(list: TrustListName, kind: string): string {
  return LIST_SOURCES[list].files.find((f) => f.kind === kind)!.file;
}

/** Reads and checks the pinned lists (a file that differs from its pin throws) and the operator's anchors. */
export function buildTrustStore(options: TrustStoreOptions): TrustStore {
  const dir = options.dir ?? SHIPPED_TRUST_LISTS_DIR;
  const pins = readPins(dir);
  const store: TrustStore = { lists: options.trustLists, pins, claimAnchors: [], allowed: [], tsaAnchors: [], cawgAnchors: [], ekuConfig: undefined };
  for (const list of options.trustLists) {
    const texts = readPinnedList(dir, pins.lists[list], list);
    const source = SOURCE_OF_LIST[list];
    store.claimAnchors.push(...anchorsOf(texts.get(fileOf(list, 'claim_anchors'))!, fileOf(list, 'claim_anchors'), source));
    if (list === 'official') store.tsaAnchors.push(...anchorsOf(texts.get(fileOf(list, 'tsa_anchors'))!, fileOf(list, 'tsa_anchors'), source));
    if (list === 'interim') {
      // The interim list is one store for signers and TSAs alike (its store.cfg accepts id-kp-timeStamping).
      store.tsaAnchors.push(...store.claimAnchors.filter((a) => a.source === source));
      store.allowed.push(...anchorsOf(texts.get(fileOf(list, 'allowed_list'))!, fileOf(list, 'allowed_list'), source));
      store.ekuConfig = texts.get(fileOf(list, 'eku_config'));
    }
  }
  const operatorFile = (file: string, source: TrustSource) => anchorsOf(readFileSync(file, 'utf8'), file, source);
  if (options.trustAnchorsFile) {
    const operator = operatorFile(options.trustAnchorsFile, 'operator_anchor');
    store.claimAnchors.push(...operator);
    store.tsaAnchors.push(...operator);
  }
  if (options.trustAllowedFile) store.allowed.push(...operatorFile(options.trustAllowedFile, 'operator_allowed'));
  if (options.trustTsaAnchorsFile) store.tsaAnchors.push(...operatorFile(options.trustTsaAnchorsFile, 'operator_anchor'));
  if (options.cawgTrustAnchorsFile) store.cawgAnchors.push(...operatorFile(options.cawgTrustAnchorsFile, 'operator_anchor'));
  return store;
}

/** The pinned version of each list in use, e.g. `official: 7dbff51`. */
export function listVersion(store: TrustStore, list: TrustListName): ListPin['version'] {
  return store.pins.lists[list].version;
}

/** Seconds until each list in use is due for its next update (negative: past it); frozen lists have none. */
export function secondsToNextUpdate(store: TrustStore, now = Date.now()): Partial<Record<TrustListName, number>> {
  const out: Partial<Record<TrustListName, number>> = {};
  for (const list of store.lists) {
    const next = store.pins.lists[list].next_update;
    if (next) out[list] = Math.round((Date.parse(next) - now) / 1000);
  }
  return out;
}

/** The lists in use that are past their next update. */
export function staleLists(store: TrustStore, now = Date.now()): TrustListName[] {
  return Object.entries(secondsToNextUpdate(store, now))
    .filter(([, s]) => s < 0)
    .map(([list]) => list as TrustListName);
}

function mtimeOf(file: string | undefined): number {
  if (!file) return 0;
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * A store that re-reads the lists when the pin file (rewritten by `npm run trust -- update`) or one of the operator's
 * files changes, looking at most every `checkIntervalMs`: a running service picks up a new version without a restart.
 * A version that fails its pins (or cannot be read) is refused: every call throws that failure, never a mix of the
 * old and the new, until a good version is in place (tried again every `checkIntervalMs`).
 */
export class TrustStoreLoader {
  private store: TrustStore | undefined;
  private failure: unknown;
  private stamp = '';
  private checkedAt = 0;

  constructor(
    private readonly options: TrustStoreOptions,
    private readonly checkIntervalMs = 30_000,
  ) {}

  /** The last store that loaded (it may since have been refused: see current()). */
  get loaded(): TrustStore | undefined {
    return this.store;
  }

  current(now = Date.now()): TrustStore {
    if (now - this.checkedAt < this.checkIntervalMs && (this.store || this.failure !== undefined)) return this.answer();
    this.checkedAt = now;
    const dir = this.options.dir ?? SHIPPED_TRUST_LISTS_DIR;
    const files = [path.join(dir, PINS_FILE), this.options.trustAnchorsFile, this.options.trustAllowedFile, this.options.trustTsaAnchorsFile, this.options.cawgTrustAnchorsFile];
    const stamp = files.map(mtimeOf).join(':');
    // A failure is tried again even when nothing changed on disk (it may have been a passing read error).
    if (this.store && this.failure === undefined && stamp === this.stamp) return this.store;
    this.stamp = stamp;
    try {
      this.store = buildTrustStore(this.options);
      this.failure = undefined;
    } catch (err) {
      this.failure = err;
    }
    return this.answer();
  }

  private answer(): TrustStore {
    if (this.failure !== undefined) throw this.failure;
    return this.store!;
  }
}

/** The settings a process's trust store is built from. */
export type TrustConfig = Pick<Config, 'trustLists' | 'trustListsDir' | 'trustAnchorsFile' | 'trustAllowedFile' | 'trustTsaAnchorsFile' | 'trustReloadSeconds'> &
  Partial<Pick<Config, 'cawgTrustAnchorsFile'>>;

let processLoader: { key: string; loader: TrustStoreLoader } | undefined;

/**
 * This process's trust store under its configuration (one loader per process, so reloads are shared). Lists that
 * cannot be loaded (a file that differs from its pin, an unreadable operator file) are a 503
 * `trust_lists_unavailable`: no verdict is given without the trust it is meant to be judged by.
 */
export function processTrustStore(config: TrustConfig): TrustStore {
  const key = JSON.stringify([config.trustLists, config.trustListsDir, config.trustAnchorsFile, config.trustAllowedFile, config.trustTsaAnchorsFile, config.cawgTrustAnchorsFile, config.trustReloadSeconds]);
  if (processLoader?.key !== key) {
    const options = {
      trustLists: config.trustLists,
      dir: config.trustListsDir,
      trustAnchorsFile: config.trustAnchorsFile,
      trustAllowedFile: config.trustAllowedFile,
      trustTsaAnchorsFile: config.trustTsaAnchorsFile,
      cawgTrustAnchorsFile: config.cawgTrustAnchorsFile,
    };
    processLoader = { key, loader: new TrustStoreLoader(options, config.trustReloadSeconds * 1000) };
  }
  try {
    return processLoader.loader.current();
  } catch (err) {
    throw new ServiceError('unavailable', 'trust_lists_unavailable', `the trust lists cannot be loaded: ${(err as Error).message}`, {
      cause: err,
      publicMessage: 'verification is unavailable: the trust lists this service judges by cannot be loaded (see /health/ready)',
    });
  }
}

/** The store this process last loaded, if it has used one (for metrics, which must not load it themselves). */
export function loadedTrustStore(): TrustStore | undefined {
  return processLoader?.loader.loaded;
}
