/**
 * X.509 v2 CRLs (RFC 5280 section 5), signed ecdsa-with-SHA384 through the issuing CA's VaultKey.
 *
 * The service publishes two full CRLs: leaf.crl (issuer: sub-CA) and sub-ca.crl (issuer: root CA).
 * Each carries: issuer = the CA certificate's subject (byte-for-byte), thisUpdate, nextUpdate
 * (spec: thisUpdate + 7 days), the CRL number and authority key identifier extensions, and one entry per
 * revoked certificate with a reasonCode entry extension (left out for `unspecified`, as RFC 5280 5.3.1
 * advises).
 */
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifier,
  CRLReason,
  CertificateList,
  Extension,
  KeyIdentifier,
  RevokedCertificate,
  TBSCertList,
  Time,
  Version,
  id_ce_authorityKeyIdentifier,
  id_ce_cRLNumber,
  id_ce_cRLReasons,
} from '@peculiar/asn1-x509';
import type { VaultKey } from '../vault/types.js';
import { authorityKeyIdFor, nameFromDer, nameToString, readCertificate } from './certificate.js';
import { CRL_REASON_CODES, crlReasonFromCode, isCrlReason, type CrlReason } from './crl-reasons.js';
import { TAG, bytesEqual, contentBytes, decodeUnsignedInteger, encodeUnsignedInteger, readChildren, readSingle, tlvBytes, toArrayBuffer, toHex } from './der.js';
import { integerBytesToSerialHex, normalizeSerialHex, serialHexToIntegerBytes } from './serial.js';
import { ECDSA_WITH_SHA384_ALGORITHM_DER, ecdsaWithSha384Algorithm, p384PublicKey, samePublicKey, signAndAssemble, verifyEs384Der } from './tbs-signer.js';

export { CRL_REASONS, CRL_REASON_CODES, CRL_REASON_NAMES, crlReasonCode, crlReasonFromCode, isCrlReason, type CrlReason, type CrlReasonCode } from './crl-reasons.js';

/** Spec, CRL rules 1 / Limits: nextUpdate is 7 days after the CRL's issue time (thisUpdate). */
export const CRL_NEXT_UPDATE_MS = 7 * 24 * 60 * 60 * 1000;
/** RFC 5280 5.2.3: a CRL number fits in 20 octets. */
export const MAX_CRL_NUMBER = (1n << 159n) - 1n;

export class CrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CrlError';
  }
}

export interface RevokedEntry {
  /** Serial of the revoked certificate, hex (normalised, see serial.ts). */
  serialHex: string;
  /** Revocation time (encoded to whole seconds). */
  revokedAt: Date;
  reason: CrlReason;
}

export interface CrlContent {
  /** DER of the CA certificate whose key signs this CRL (sub-CA for leaf.crl, root for sub-ca.crl). */
  issuerCertificateDer: Uint8Array;
  /** Monotonically increasing per issuer (RFC 5280 5.2.3); 0 .. 2^159-1. */
  crlNumber: bigint | number;
  /** Issue time; default now. Encoded to whole seconds. */
  thisUpdate?: Date;
  /** Default thisUpdate + CRL_NEXT_UPDATE_MS (7 days). Must be after thisUpdate. */
  nextUpdate?: Date;
  revoked: readonly RevokedEntry[];
}

export interface CreateCrlInput extends CrlContent {
  /** The issuing CA's vault key; must hold the issuer certificate's public key. */
  issuerKey: VaultKey;
}

export interface BuiltTbsCertList {
  tbsDer: Uint8Array;
  thisUpdate: Date;
  nextUpdate: Date;
  crlNumber: bigint;
}

export interface CreatedCrl {
  der: Uint8Array;
  thisUpdate: Date;
  nextUpdate: Date;
  crlNumber: bigint;
  revokedCount: number;
}

export interface CrlFacts {
  /** RFC 4514 issuer name. */
  issuer: string;
  thisUpdate: Date;
  nextUpdate?: Date;
  crlNumber?: bigint;
  authorityKeyIdHex?: string;
  /** Entries; reason is `unspecified` when the entry has no reasonCode. */
  revoked: RevokedEntry[];
}

function wholeSeconds(d: Date, what: string): Date {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new CrlError(`${what} is not a valid date`);
  const out = new Date(Math.floor(d.getTime() / 1000) * 1000);
  const year = out.getUTCFullYear();
  if (year < 1950 || year > 9999) throw new CrlError(`${what} must be between the years 1950 and 9999`);
  return out;
}

function toCrlNumber(n: bigint | number): bigint {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new CrlError(`CRL number ${n} is not a safe integer`);
  const v = BigInt(n);
  if (v < 0n || v > MAX_CRL_NUMBER) throw new CrlError('CRL number must be between 0 and 2^159 - 1');
  return v;
}

function extension(extnID: string, value: ArrayBuffer | Uint8Array, critical = false): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(value instanceof Uint8Array ? toArrayBuffer(value) : value) });
}

/**
 * The DER TBSCertList for `content`, ready for signTbs. Exposed for callers that sign elsewhere and for
 * tests (e.g. a CRL deliberately signed with the wrong key); normal callers use createCrl.
 */
export function buildTbsCertList(content: CrlContent): BuiltTbsCertList {
  const issuer = readCertificate(content.issuerCertificateDer);
  const thisUpdate = wholeSeconds(content.thisUpdate ?? new Date(), 'thisUpdate');
  const nextUpdate = wholeSeconds(content.nextUpdate ?? new Date(thisUpdate.getTime() + CRL_NEXT_UPDATE_MS), 'nextUpdate');
  if (nextUpdate.getTime() <= thisUpdate.getTime()) throw new CrlError('nextUpdate must be after thisUpdate');
  const crlNumber = toCrlNumber(content.crlNumber);

  const seen = new Set<string>();
  const entries = content.revoked.map((e) => {
    if (!isCrlReason(e.reason)) throw new CrlError(`unknown revocation reason "${String(e.reason)}"`);
    if (e.reason === 'removeFromCRL') throw new CrlError('removeFromCRL is only valid in delta CRLs; leave the entry out of a full CRL');
    const serialHex = normalizeSerialHex(e.serialHex);
    if (seen.has(serialHex)) throw new CrlError(`serial ${serialHex} is listed twice`);
    seen.add(serialHex);
    return { serialHex, revokedAt: wholeSeconds(e.revokedAt, `revokedAt of ${serialHex}`), reason: e.reason };
  });
  // Deterministic order: by serial value.
  entries.sort((a, b) => {
    const x = BigInt(`0x${a.serialHex}`);
    const y = BigInt(`0x${b.serialHex}`);
    return x < y ? -1 : x > y ? 1 : 0;
  });

  const revokedCertificates = entries.map((e) => {
    const entry = new RevokedCertificate({
      userCertificate: toArrayBuffer(serialHexToIntegerBytes(e.serialHex)),
      revocationDate: new Time(e.revokedAt),
    });
    if (e.reason !== 'unspecified') {
      entry.crlEntryExtensions = [extension(id_ce_cRLReasons, AsnConvert.serialize(new CRLReason(CRL_REASON_CODES[e.reason])))];
    }
    return entry;
  });

  const tbs = new TBSCertList({
    version: Version.v2,
    signature: ecdsaWithSha384Algorithm(),
    issuer: nameFromDer(issuer.subjectNameDer),
    thisUpdate: new Time(thisUpdate),
    nextUpdate: new Time(nextUpdate),
    crlExtensions: [
      extension(
        id_ce_authorityKeyIdentifier,
        AsnConvert.serialize(new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(authorityKeyIdFor(issuer)) })),
      ),
      extension(id_ce_cRLNumber, encodeUnsignedInteger(crlNumber)),
    ],
  });
  // RFC 5280 5.1.2.6: with no revoked certificates the list MUST be absent (not an empty SEQUENCE).
  if (revokedCertificates.length > 0) tbs.revokedCertificates = revokedCertificates;
  return { tbsDer: new Uint8Array(AsnConvert.serialize(tbs)), thisUpdate, nextUpdate, crlNumber };
}

/** Builds and signs a CRL through the issuer's vault key. */
export async function createCrl(input: CreateCrlInput): Promise<CreatedCrl> {
  const issuer = readCertificate(input.issuerCertificateDer);
  const f = issuer.facts;
  if (!f.isCa) throw new CrlError(`issuer "${f.subject}" is not a CA`);
  if (f.keyUsage.length > 0 && !f.keyUsage.includes('crlSign')) throw new CrlError(`issuer "${f.subject}" keyUsage does not allow cRLSign`);
  p384PublicKey(input.issuerKey.publicKeySpki, `issuer vault key "${input.issuerKey.name}"`);
  if (!samePublicKey(input.issuerKey.publicKeySpki, issuer.spkiDer)) {
    throw new CrlError(`vault key "${input.issuerKey.name}" does not hold the public key of issuer "${f.subject}"`);
  }
  const built = buildTbsCertList(input);
  const der = await signAndAssemble(input.issuerKey, built.tbsDer);
  return { der, thisUpdate: built.thisUpdate, nextUpdate: built.nextUpdate, crlNumber: built.crlNumber, revokedCount: input.revoked.length };
}

/** Reads a DER CRL. Does not verify its signature (see verifyCrlSignature). Throws CrlError when malformed. */
export function parseCrl(der: Uint8Array): CrlFacts {
  try {
    return readCrl(der);
  } catch (err) {
    if (err instanceof CrlError) throw err;
    throw new CrlError(`not a DER X.509 CRL: ${(err as Error).message}`);
  }
}

function readCrl(der: Uint8Array): CrlFacts {
  const outer = readSingle(der, TAG.SEQUENCE);
  const [tbsTlv] = readChildren(der, outer);
  if (!tbsTlv) throw new CrlError('CRL has no TBSCertList');
  const fields = readChildren(der, tbsTlv);
  const issuerTlv = fields[fields[0]?.tag === TAG.INTEGER ? 2 : 1];
  if (!issuerTlv) throw new CrlError('TBSCertList has no issuer');

  const list = AsnConvert.parse(der, CertificateList);
  const tbs = list.tbsCertList;
  const facts: CrlFacts = {
    issuer: nameToString(tlvBytes(der, issuerTlv)),
    thisUpdate: tbs.thisUpdate.getTime(),
    revoked: (tbs.revokedCertificates ?? []).map((r) => {
      const reasonExt = r.crlEntryExtensions?.find((e) => e.extnID === id_ce_cRLReasons);
      const reason = reasonExt ? crlReasonFromCode(AsnConvert.parse(reasonExt.extnValue, CRLReason).reason) : 'unspecified';
      return {
        serialHex: integerBytesToSerialHex(new Uint8Array(r.userCertificate)),
        revokedAt: r.revocationDate.getTime(),
        reason,
      };
    }),
  };
  if (tbs.nextUpdate) facts.nextUpdate = tbs.nextUpdate.getTime();
  for (const ext of tbs.crlExtensions ?? []) {
    if (ext.extnID === id_ce_cRLNumber) facts.crlNumber = decodeUnsignedInteger(new Uint8Array(ext.extnValue.buffer));
    if (ext.extnID === id_ce_authorityKeyIdentifier) {
      const aki = AsnConvert.parse(ext.extnValue, AuthorityKeyIdentifier);
      if (aki.keyIdentifier) facts.authorityKeyIdHex = toHex(aki.keyIdentifier.buffer);
    }
  }
  return facts;
}

/** True when the CRL is ecdsa-with-SHA384-signed by the key of `issuerCertificateDer` and names it as issuer. */
export function verifyCrlSignature(crlDer: Uint8Array, issuerCertificateDer: Uint8Array): boolean {
  const issuer = readCertificate(issuerCertificateDer);
  const outer = readSingle(crlDer, TAG.SEQUENCE);
  const [tbsTlv, algTlv, sigTlv, ...rest] = readChildren(crlDer, outer);
  if (!tbsTlv || !algTlv || !sigTlv || rest.length || sigTlv.tag !== TAG.BIT_STRING) return false;
  if (!bytesEqual(tlvBytes(crlDer, algTlv), ECDSA_WITH_SHA384_ALGORITHM_DER)) return false;
  const fields = readChildren(crlDer, tbsTlv);
  const issuerTlv = fields[fields[0]?.tag === TAG.INTEGER ? 2 : 1];
  if (!issuerTlv || !bytesEqual(tlvBytes(crlDer, issuerTlv), issuer.subjectNameDer)) return false;
  const bits = contentBytes(crlDer, sigTlv);
  if (bits.length < 2 || bits[0] !== 0) return false;
  try {
    return verifyEs384Der(issuer.spkiDer, tlvBytes(crlDer, tbsTlv), bits.subarray(1));
  } catch {
    return false;
  }
}
