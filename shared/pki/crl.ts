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
  Extension,
  Extensions,
  KeyIdentifier,
  id_ce_authorityKeyIdentifier,
  id_ce_cRLNumber,
  id_ce_cRLReasons,
} from '@peculiar/asn1-x509';
import type { VaultKey } from '../vault/types.js';
import { authorityKeyIdFor, nameToString, readCertificate } from './certificate.js';
import { CRL_REASON_CODES, crlReasonFromCode, isCrlReason, type CrlReason } from '../domain/crl-reasons.js';
import {
  TAG,
  bytesEqual,
  contentBytes,
  decodeUnsignedInteger,
  encodeTime,
  encodeTlv,
  encodeUnsignedInteger,
  headerLength,
  readChildren,
  readSingle,
  readTime,
  timeLength,
  tlvBytes,
  toArrayBuffer,
  toHex,
  writeHeader,
  writeTime,
  type Tlv,
} from './der.js';
import { integerBytesToSerialHex, normalizeSerialHex } from './serial.js';
import { ECDSA_WITH_SHA384_ALGORITHM_DER, p384PublicKey, samePublicKey, signAndAssemble, verifyEs384Der } from './tbs-signer.js';

export { CRL_REASON_NAMES, type CrlReason } from '../domain/crl-reasons.js';

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

/** 1950-01-01 and 10000-01-01 UTC: the years wholeSeconds accepts. */
const MIN_TIME_MS = Date.UTC(1950, 0, 1);
const MAX_TIME_MS = Date.UTC(10000, 0, 1);

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

/** DER of `Version v2` (INTEGER 1). */
const VERSION_V2_DER = Uint8Array.of(TAG.INTEGER, 0x01, 0x01);

/**
 * The crlEntryExtensions of an entry per reason (a reasonCode extension; none for `unspecified`), encoded once by
 * asn1-schema: every entry of a reason carries the same bytes.
 */
const ENTRY_EXTENSIONS: ReadonlyMap<CrlReason, Uint8Array> = new Map(
  (Object.keys(CRL_REASON_CODES) as CrlReason[])
    .filter((reason) => reason !== 'unspecified' && reason !== 'removeFromCRL')
    .map((reason) => [
      reason,
      new Uint8Array(AsnConvert.serialize(new Extensions([extension(id_ce_cRLReasons, AsnConvert.serialize(new CRLReason(CRL_REASON_CODES[reason])))]))),
    ]),
);

/** A serial already in canonical form (see serial.ts): lowercase hex, whole octets, no leading 00, 1..20 octets. */
const CANONICAL_SERIAL = /^(?!00)(?:[0-9a-f]{2}){1,20}$/;

interface PreparedEntry {
  serialHex: string;
  revokedAt: Date;
  extensions: Uint8Array | undefined;
}

/** Checked, normalised and sorted by serial value (each entry is a few primitive fields: no ASN.1 objects). */
function prepareEntries(revoked: readonly RevokedEntry[]): PreparedEntry[] {
  const entries = new Array<PreparedEntry>(revoked.length);
  for (let i = 0; i < revoked.length; i++) {
    const e = revoked[i]!;
    if (!isCrlReason(e.reason)) throw new CrlError(`unknown revocation reason "${String(e.reason)}"`);
    if (e.reason === 'removeFromCRL') throw new CrlError('removeFromCRL is only valid in delta CRLs; leave the entry out of a full CRL');
    const serialHex = typeof e.serialHex === 'string' && CANONICAL_SERIAL.test(e.serialHex) ? e.serialHex : normalizeSerialHex(e.serialHex);
    const t = e.revokedAt instanceof Date ? e.revokedAt.getTime() : NaN;
    // wholeSeconds, without building its error message for every valid entry
    const revokedAt = t >= MIN_TIME_MS && t < MAX_TIME_MS ? new Date(Math.floor(t / 1000) * 1000) : wholeSeconds(e.revokedAt, `revokedAt of ${serialHex}`);
    entries[i] = { serialHex, revokedAt, extensions: ENTRY_EXTENSIONS.get(e.reason) };
  }
  // Deterministic order: by serial value. Canonical hex has no leading zero octet, so a longer one is larger
  // and equal lengths compare as strings.
  entries.sort((a, b) => a.serialHex.length - b.serialHex.length || (a.serialHex < b.serialHex ? -1 : a.serialHex > b.serialHex ? 1 : 0));
  for (let i = 1; i < entries.length; i++) {
    if (entries[i]!.serialHex === entries[i - 1]!.serialHex) throw new CrlError(`serial ${entries[i]!.serialHex} is listed twice`);
  }
  return entries;
}

/**
 * `revokedCertificates`: SEQUENCE OF SEQUENCE { userCertificate INTEGER, revocationDate Time, crlEntryExtensions },
 * written straight into one buffer (asn1-schema objects cost about 30 us and several allocations per entry, most
 * of the time of a 100,000-entry CRL).
 */
function encodeRevokedCertificates(entries: readonly PreparedEntry[]): Uint8Array {
  const sizes = new Array<number>(entries.length);
  let total = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const serialOctets = e.serialHex.length / 2 + (e.serialHex.charCodeAt(0) >= 0x38 ? 1 : 0); // '8'..'f': sign octet
    const size = 2 + serialOctets + timeLength(e.revokedAt) + (e.extensions?.length ?? 0);
    sizes[i] = size;
    total += headerLength(size) + size;
  }
  const out = Buffer.allocUnsafe(headerLength(total) + total);
  let pos = writeHeader(out, 0, TAG.SEQUENCE, total);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    pos = writeHeader(out, pos, TAG.SEQUENCE, sizes[i]!);
    const signOctet = e.serialHex.charCodeAt(0) >= 0x38;
    pos = writeHeader(out, pos, TAG.INTEGER, e.serialHex.length / 2 + (signOctet ? 1 : 0));
    if (signOctet) out[pos++] = 0;
    pos += out.write(e.serialHex, pos, 'hex');
    pos = writeTime(out, pos, e.revokedAt);
    if (e.extensions) {
      out.set(e.extensions, pos);
      pos += e.extensions.length;
    }
  }
  if (pos !== out.length) throw new CrlError('internal error: revokedCertificates length mismatch');
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/**
 * The DER TBSCertList for `content`, ready for signTbs. Exposed for callers that sign elsewhere and for
 * tests (e.g. a CRL deliberately signed with the wrong key); normal callers use createCrl.
 *
 * Written with the DER writers of der.ts, not as asn1-schema objects: the entries are most of a large CRL. The
 * issuer Name is the issuer certificate's subject, byte for byte; the extensions (two per CRL, one per entry
 * reason) are still encoded by asn1-schema.
 */
export function buildTbsCertList(content: CrlContent): BuiltTbsCertList {
  const issuer = readCertificate(content.issuerCertificateDer);
  const thisUpdate = wholeSeconds(content.thisUpdate ?? new Date(), 'thisUpdate');
  const nextUpdate = wholeSeconds(content.nextUpdate ?? new Date(thisUpdate.getTime() + CRL_NEXT_UPDATE_MS), 'nextUpdate');
  if (nextUpdate.getTime() <= thisUpdate.getTime()) throw new CrlError('nextUpdate must be after thisUpdate');
  const crlNumber = toCrlNumber(content.crlNumber);
  const entries = prepareEntries(content.revoked);

  const crlExtensions = encodeTlv(
    0xa0, // [0] EXPLICIT Extensions
    encodeTlv(
      TAG.SEQUENCE,
      new Uint8Array(
        AsnConvert.serialize(
          extension(
            id_ce_authorityKeyIdentifier,
            AsnConvert.serialize(new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(authorityKeyIdFor(issuer)) })),
          ),
        ),
      ),
      new Uint8Array(AsnConvert.serialize(extension(id_ce_cRLNumber, encodeUnsignedInteger(crlNumber)))),
    ),
  );
  const tbsDer = encodeTlv(
    TAG.SEQUENCE,
    VERSION_V2_DER,
    ECDSA_WITH_SHA384_ALGORITHM_DER,
    issuer.subjectNameDer,
    encodeTime(thisUpdate),
    encodeTime(nextUpdate),
    // RFC 5280 5.1.2.6: with no revoked certificates the list MUST be absent (not an empty SEQUENCE).
    ...(entries.length > 0 ? [encodeRevokedCertificates(entries)] : []),
    crlExtensions,
  );
  return { tbsDer, thisUpdate, nextUpdate, crlNumber };
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

/** Contents of the OIDs read here: cRLReasons, cRLNumber, authorityKeyIdentifier (2.5.29.21 / 20 / 35). */
const OID_CRL_REASONS = Uint8Array.of(0x55, 0x1d, 0x15);
const OID_CRL_NUMBER = Uint8Array.of(0x55, 0x1d, 0x14);
const OID_AUTHORITY_KEY_ID = Uint8Array.of(0x55, 0x1d, 0x23);
const BOOLEAN_TAG = 0x01;
const CONTEXT_0_CONSTRUCTED = 0xa0;
const CONTEXT_0_PRIMITIVE = 0x80;

function isTime(tlv: Tlv | undefined): tlv is Tlv {
  return tlv !== undefined && (tlv.tag === TAG.UTC_TIME || tlv.tag === TAG.GENERALIZED_TIME);
}

function expectTag(tlv: Tlv | undefined, tag: number, what: string): Tlv {
  if (!tlv || tlv.tag !== tag) throw new CrlError(`${what}: expected DER tag 0x${tag.toString(16)}`);
  return tlv;
}

/** Extensions ::= SEQUENCE OF Extension { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }. */
function readExtensions(der: Uint8Array, list: Tlv): { oid: Uint8Array; value: Uint8Array }[] {
  return readChildren(der, expectTag(list, TAG.SEQUENCE, 'Extensions')).map((ext) => {
    const parts = readChildren(der, expectTag(ext, TAG.SEQUENCE, 'Extension'));
    const oid = expectTag(parts[0], TAG.OID, 'extnID');
    const valueTlv = parts[1]?.tag === BOOLEAN_TAG ? parts[2] : parts[1];
    if (parts.length !== (parts[1]?.tag === BOOLEAN_TAG ? 3 : 2)) throw new CrlError('Extension: unexpected fields');
    return { oid: contentBytes(der, oid), value: contentBytes(der, expectTag(valueTlv, TAG.OCTET_STRING, 'extnValue')) };
  });
}

/**
 * Reads a CertificateList with the strict DER reader of der.ts (one pass, no ASN.1 objects per entry: asn1-schema
 * refuses structures of more than 10,000 nodes, about 2,000 entries).
 */
function readCrl(der: Uint8Array): CrlFacts {
  const outer = readSingle(der, TAG.SEQUENCE);
  const parts = readChildren(der, outer);
  if (parts.length !== 3 || parts[2]!.tag !== TAG.BIT_STRING) throw new CrlError('not a CertificateList (tbsCertList, signatureAlgorithm, signature)');
  expectTag(parts[1], TAG.SEQUENCE, 'signatureAlgorithm');
  const fields = readChildren(der, expectTag(parts[0], TAG.SEQUENCE, 'TBSCertList'));
  let i = 0;
  if (fields[i]?.tag === TAG.INTEGER) i++; // version (v2); absent in v1
  expectTag(fields[i++], TAG.SEQUENCE, 'TBSCertList signature');
  const issuerTlv = expectTag(fields[i++], TAG.SEQUENCE, 'TBSCertList issuer');
  if (!isTime(fields[i])) throw new CrlError('TBSCertList has no thisUpdate');
  const facts: CrlFacts = { issuer: nameToString(tlvBytes(der, issuerTlv)), thisUpdate: readTime(der, fields[i++]!), revoked: [] };
  if (isTime(fields[i])) facts.nextUpdate = readTime(der, fields[i++]!);
  if (fields[i]?.tag === TAG.SEQUENCE) {
    for (const entry of readChildren(der, fields[i++]!)) {
      const [serial, date, extensions, ...rest] = readChildren(der, expectTag(entry, TAG.SEQUENCE, 'revoked certificate'));
      if (!isTime(date) || rest.length > 0) throw new CrlError('revoked certificate: expected userCertificate, revocationDate, crlEntryExtensions');
      let reason: CrlReason = 'unspecified';
      if (extensions) {
        const reasonCode = readExtensions(der, extensions).find((e) => bytesEqual(e.oid, OID_CRL_REASONS));
        if (reasonCode) {
          const enumerated = readSingle(reasonCode.value, TAG.ENUMERATED);
          const code = contentBytes(reasonCode.value, enumerated);
          if (code.length !== 1) throw new CrlError('reasonCode: expected a one-octet ENUMERATED');
          reason = crlReasonFromCode(code[0]!);
        }
      }
      facts.revoked.push({
        serialHex: integerBytesToSerialHex(contentBytes(der, expectTag(serial, TAG.INTEGER, 'userCertificate'))),
        revokedAt: readTime(der, date),
        reason,
      });
    }
  }
  if (fields[i]?.tag === CONTEXT_0_CONSTRUCTED) {
    const [list, ...rest] = readChildren(der, fields[i++]!);
    if (rest.length > 0) throw new CrlError('crlExtensions: unexpected fields');
    for (const ext of readExtensions(der, expectTag(list, TAG.SEQUENCE, 'crlExtensions'))) {
      if (bytesEqual(ext.oid, OID_CRL_NUMBER)) facts.crlNumber = decodeUnsignedInteger(ext.value);
      if (bytesEqual(ext.oid, OID_AUTHORITY_KEY_ID)) {
        const keyId = readChildren(ext.value, readSingle(ext.value, TAG.SEQUENCE)).find((t) => t.tag === CONTEXT_0_PRIMITIVE);
        if (keyId) facts.authorityKeyIdHex = toHex(contentBytes(ext.value, keyId));
      }
    }
  }
  if (i !== fields.length) throw new CrlError('TBSCertList: unexpected field');
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
