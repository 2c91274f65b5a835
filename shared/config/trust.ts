/** What verification trusts: the shipped trust lists and the operator's own anchor files. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PINS_FILE, TRUST_LIST_NAMES, type TrustListName } from '../trust/lists.js';
import { ConfigError, existingFile, int, optional, str, type Env } from './parse.js';

export interface TrustSettings {
  /** The shipped trust lists verification uses (TRUST_LISTS, default official,interim). */
  trustLists: TrustListName[];
  /** Where the pinned trust lists are read (TRUST_LISTS_DIR; undefined: the shipped trust/lists). */
  trustListsDir: string | undefined;
  /** The operator's own trust anchors, for claim signers and timestamps, a PEM file (TRUST_ANCHORS_FILE). */
  trustAnchorsFile: string | undefined;
  /** The operator's end-entity claim-signing certificates, trusted one by one, a PEM file (TRUST_ALLOWED_FILE). */
  trustAllowedFile: string | undefined;
  /** The operator's anchors for timestamps only (TSAs), a PEM file (TRUST_TSA_ANCHORS_FILE). */
  trustTsaAnchorsFile: string | undefined;
  /** The operator's anchors for CAWG identity assertions only (people's identity certificates), a PEM file (CAWG_TRUST_ANCHORS_FILE). */
  cawgTrustAnchorsFile: string | undefined;
  /** How often a running process looks for a new version of the lists (TRUST_RELOAD_SECONDS). */
  trustReloadSeconds: number;
}

/** The operator's trust files are read, and checked, with the trust lists. */
export function trustSettings(env: Env): TrustSettings {
  return {
    trustLists: trustLists(env),
    trustListsDir: trustListsDir(env),
    trustAnchorsFile: existingFile(env, 'TRUST_ANCHORS_FILE'),
    trustAllowedFile: existingFile(env, 'TRUST_ALLOWED_FILE'),
    trustTsaAnchorsFile: existingFile(env, 'TRUST_TSA_ANCHORS_FILE'),
    cawgTrustAnchorsFile: existingFile(env, 'CAWG_TRUST_ANCHORS_FILE'),
    trustReloadSeconds: int(env, 'TRUST_RELOAD_SECONDS', 60, 1, 24 * 3600),
  };
}

/** TRUST_LISTS: a comma-separated set of the shipped lists; `official` must stay (interim alone is a frozen legacy list). */
function trustLists(env: Env): TrustListName[] {
  const raw = str(env, 'TRUST_LISTS', 'official,interim');
  const names = [...new Set(raw.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean))];
  const unknown = names.filter((n) => !(TRUST_LIST_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new ConfigError('TRUST_LISTS', `names an unknown list: ${unknown.join(', ')} (known: ${TRUST_LIST_NAMES.join(', ')})`);
  if (!names.includes('official')) throw new ConfigError('TRUST_LISTS', 'must include official (the interim list is frozen and only adds to it)');
  return TRUST_LIST_NAMES.filter((n) => names.includes(n));
}

function trustListsDir(env: Env): string | undefined {
  const dir = optional(env, 'TRUST_LISTS_DIR');
  if (dir === undefined) return undefined;
  if (!existsSync(path.join(dir, PINS_FILE))) throw new ConfigError('TRUST_LISTS_DIR', `${dir} holds no pins.json (copy trust/lists there, then \`npm run trust -- update --dir\`)`);
  return path.resolve(dir);
}
