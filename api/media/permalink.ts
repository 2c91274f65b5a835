/**
 * The permalink of a public verification (GET /v1/verify/{sha256}): what POST /v1/verify found for a file, brought up
 * to date when it is read. Whatever can have changed since is judged again, never served from the stored answer:
 * - recovered manifests: looked up again by the stored fingerprint, so a file whose organisation (or job) is no
 *   longer discoverable, or that is gone, is not shown, and candidates show their current revocation and anchor;
 * - a file with its own manifest: the signer's revocation status and the file's anchor are read again, and when the
 *   file is one the service signed for an organisation that has since made it non-discoverable, nothing is shown
 *   (the caller learns only that no public result is kept; whoever has the file can verify it again).
 * Only what the file alone proves is kept there (provenByFileAlone).
 */
import type { Knex } from 'knex';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { MANIFEST_STORE_TYPE } from '../../shared/c2pa/reader-open.js';
import type { Config } from '../../shared/config.js';
import { manifestDiscoverabilityOfBytes } from '../../shared/db/repositories/sign-jobs.js';
import { decodeImageCode } from '../../shared/softbinding/iscc-codec.js';
import { verifyAnchor } from './anchor-verification.js';
import { recoverByFingerprint, RECOVERY_NOTE } from './recovery.js';
import { revocationOf } from './verification.js';
import type { VerifyPool } from './verify-pool.js';

/**
 * Whether a verdict is what the file alone proves (its embedded manifest, or none), the only kind a permalink shows.
 * Not one read from a manifest store sent with the file (a sidecar: whoever holds the file can send any), nor from the
 * remote manifest the URL in the file names (whoever serves that URL decides it, and can change it). A manifest store
 * verified alone is a file of its own: what it proves is its own.
 */
export function provenByFileAlone(result: { mime_type?: unknown; manifest_source?: unknown }): boolean {
  const kind = (result.manifest_source as { kind?: unknown } | null | undefined)?.kind;
  return kind === undefined || kind === 'embedded' || result.mime_type === MANIFEST_STORE_TYPE;
}

type StoredResult = Record<string, unknown> & { validation_state?: string; fingerprint?: string | null; signer?: { serial?: string | null; issuer?: string | null } | null };

/** Whether the service signed these bytes for a file that is now hidden from public lookups. */
async function hiddenSignedFile(knex: Knex, sha256: string): Promise<boolean> {
  const discoverability = await manifestDiscoverabilityOfBytes(sha256, knex);
  return discoverability.length > 0 && !discoverability.includes(true);
}

/** The stored result as it stands now, or undefined when it may no longer be shown. */
export async function currentPublicResult(knex: Knex, pool: VerifyPool, config: Config, sha256: string, stored: StoredResult): Promise<Record<string, unknown> | undefined> {
  if (stored.validation_state !== 'none') {
    if (await hiddenSignedFile(knex, sha256)) return undefined;
    const [revocation, anchor] = await Promise.all([revocationOf(knex, stored.signer), verifyAnchor(knex, config.baseUrl, sha256, chainReaderFor(config))]);
    return { ...stored, revocation, anchor, recovered: [], recovered_note: null };
  }
  const recovered = stored.fingerprint ? await recoverByFingerprint({ knex, verifyPool: pool, config }, decodeImageCode(stored.fingerprint)) : [];
  const anchor = await verifyAnchor(knex, config.baseUrl, sha256, chainReaderFor(config));
  return { ...stored, anchor, recovered, recovered_note: recovered.length ? RECOVERY_NOTE : null };
}
