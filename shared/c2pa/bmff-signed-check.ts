import { isDeepStrictEqual } from 'node:util';
import { bmffHashMatches, exclusionsOf, type BmffHashAssertion } from './bmff-hash.js';
import { readBmffFile } from './bmff-read.js';
import { BMFF_HASH_LABEL, DEFAULT_BMFF_EXCLUSIONS } from './bmff-stream-hash.js';
import { digestOf } from './data-hash.js';
import type { CheckedBinding } from './detached-binding.js';
import { C2paError } from './errors.js';
import type { SignableMimeType } from './media-type.js';

/**
 * Step 8 of signing a BMFF file with a file-level hash (bmff-sign.ts): the file this code wrote is read as verification
 * reads it, and anything but a manifest that validates with a matching BMFF hash (its signer's trust aside) means it
 * does not verify: it is not returned. In two parts when the claim thumbnail is still being taken, so that the long one
 * runs meanwhile:
 *
 * - the body, before the manifest is embedded: the written file hashed by the project's check (bmff-hash.ts, c2pa-rs's
 *   check ported), not by the writer's stream hash, must give the digest the manifest will carry. The room is left out
 *   of that hash (a `free` box now; the C2PA box and a `free` box once the manifest is in), and embedding writes the
 *   room only, so what holds for the body holds for the signed file;
 * - the signed file: its manifest store read back out of it and validated by c2pa-rs (claim, signature, assertions),
 *   its BMFF hash assertion the one the body was checked against, or else (no body check, or another assertion)
 *   checked against the whole file.
 */

/** The v3 assertion the body is checked against, as crJSON gives it (bytes as b64 strings). */
function assertionOf(digest: Uint8Array): BmffHashAssertion {
  return { exclusions: DEFAULT_BMFF_EXCLUSIONS, alg: 'sha256', hash: `b64'${Buffer.from(digest).toString('base64')}'` };
}

/** The first part: the written body hashes to `digest`. */
export async function checkWrittenBody(outputPath: string, digest: Uint8Array): Promise<void> {
  if (!(await bmffHashMatches(outputPath, assertionOf(digest), { version: 3 }))) {
    throw new C2paError('the written file does not hash to the digest it was signed for');
  }
}

/** The body's verdict for the signed file's assertion: a match when it is the one the body was checked against. */
function bodyChecked(digest: Uint8Array): CheckedBinding {
  return (label, data) => {
    const assertion = data as BmffHashAssertion;
    const same = label === BMFF_HASH_LABEL && assertion.alg === 'sha256' && !assertion.merkle && digestOf(assertion.hash)?.equals(digest) && isDeepStrictEqual(exclusionsOf(assertion), DEFAULT_BMFF_EXCLUSIONS);
    return same ? true : undefined;
  };
}

/** The second part, after the manifest is embedded; `checkedDigest`: the body's, when it was checked (else the file is hashed). */
export async function checkSignedFile(outputPath: string, mimeType: SignableMimeType, anchor: string, checkedDigest?: Uint8Array): Promise<void> {
  const { report } = await readBmffFile(outputPath, mimeType, { trustAnchorsPem: anchor }, checkedDigest && bodyChecked(checkedDigest));
  const failures = report.status.failure.filter((c) => c !== 'signingCredential.untrusted');
  if (report.validation_state === 'none' || failures.length || !report.status.success.includes('assertion.bmffHash.match')) {
    throw new C2paError(`the signed ${mimeType} file does not verify: ${report.summary}`);
  }
}
