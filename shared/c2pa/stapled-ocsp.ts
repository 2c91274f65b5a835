/**
 * The OCSP answer stapled in a file's claim signature (`rVals.ocspVals`, revocation-values.ts), as the verify answer
 * reports it: what it says (status, when it was produced, who signed it) and whether it checks here (signed by the
 * signing certificate's issuer or its delegated responder, about that certificate). Read for the service's own files
 * and for anyone else's. c2pa-rs's own verdict on it is in its signingCredential.ocsp.* codes, reported beside.
 */
import type { CrlReason } from '../domain/crl-reasons.js';
import { checkOcspAnswer, describeOcspAnswer, type OcspAnswerFacts, type OcspCertStatusName } from '../pki/ocsp-answer.js';
import type { StatusLists } from './reader-json.js';
import { activeSignatureIn, type ActiveSignature } from './signature-cose.js';

export interface StapledOcsp {
  status: OcspCertStatusName;
  /** ISO 8601. */
  produced_at: string;
  this_update: string;
  next_update: string | null;
  revoked_at: string | null;
  revocation_reason: CrlReason | null;
  /** Subject of the certificate that signed the answer (a delegated responder's or the CA's). */
  responder: string;
  /** The answer checks here: signed by the signing certificate's issuer or a responder it delegated to, about that certificate. */
  verified: boolean;
  /** c2pa-rs's signingCredential.ocsp.* codes (e.g. signingCredential.ocsp.notRevoked). */
  codes: string[];
}

function firstOcspValue(signature: ActiveSignature): Uint8Array | undefined {
  const rVals = signature.unprotected.rVals;
  const values = rVals instanceof Map ? rVals.get('ocspVals') : (rVals as { ocspVals?: unknown } | undefined)?.ocspVals;
  // c2pa-rs reads only the first entry: so does this.
  const first: unknown = Array.isArray(values) ? values[0] : undefined;
  return first instanceof Uint8Array ? first : undefined;
}

function factsOf(der: Uint8Array, chain: readonly Uint8Array[]): { facts: OcspAnswerFacts; verified: boolean } | undefined {
  const [leaf, issuer] = chain;
  if (leaf && issuer) {
    try {
      return { facts: checkOcspAnswer(der, leaf, issuer), verified: true };
    } catch {
      // Reported as it reads, unverified.
    }
  }
  try {
    return { facts: describeOcspAnswer(der), verified: false };
  } catch {
    return undefined;
  }
}

/** The stapled answer of a signature found in a file, or null when it has none (or one that does not parse). */
export function stapledOcspOf(signature: ActiveSignature | undefined, status: StatusLists): StapledOcsp | null {
  const der = signature && firstOcspValue(signature);
  const read = der && factsOf(der, signature.x5chain);
  if (!read) return null;
  const { facts, verified } = read;
  return {
    status: facts.status,
    produced_at: facts.producedAt.toISOString(),
    this_update: facts.thisUpdate.toISOString(),
    next_update: facts.nextUpdate?.toISOString() ?? null,
    revoked_at: facts.revokedAt?.toISOString() ?? null,
    revocation_reason: facts.reason ?? null,
    responder: facts.responder,
    verified,
    codes: [...status.success, ...status.informational, ...status.failure].filter((c) => c.startsWith('signingCredential.ocsp.')),
  };
}

/** stapledOcspOf for the active manifest `activeLabel` in `file` (its bytes, or the path of a file too large to read whole). */
export async function stapledOcspOfFile(file: Uint8Array | string, activeLabel: string | null, status: StatusLists): Promise<StapledOcsp | null> {
  return stapledOcspOf(await activeSignatureIn(file, activeLabel), status);
}
