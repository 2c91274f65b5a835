/**
 * Reading X.509 certificates: the facts the service stores and shows (serial, names, validity, fingerprint,
 * key identifiers), and the exact byte ranges other PKI code needs without re-encoding (subject Name DER for
 * issuer fields and OCSP issuerNameHash, subjectPublicKey bits for key identifiers and OCSP issuerKeyHash).
 */
import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  KeyUsage,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  type KeyUsageType,
} from '@peculiar/asn1-x509';
import { DerError, TAG, bytesEqual, contentBytes, readChildren, readSingle, tlvBytes, toArrayBuffer, toHex, type Tlv } from './der.js';
import { integerBytesToSerialHex } from './serial.js';

export class CertificateParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CertificateParseError';
  }
}

/** What the service records about a certificate. */
export interface CertificateFacts {
  /** Canonical serial: lowercase hex of the positive value, even length, no sign octet (see serial.ts). */
  serialHex: string;
  /** Subject as an RFC 4514 string, most specific first, e.g. "CN=Example Leaf,O=Example Org,C=US". */
  subject: string;
  /** Issuer in the same form. */
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** Lowercase hex SHA-256 over the certificate DER. */
  fingerprintSha256: string;
  /** basicConstraints cA. */
  isCa: boolean;
  /** basicConstraints pathLenConstraint, when present. */
  pathLength?: number;
  /** keyUsage bits by RFC 5280 name, in bit order (empty when the extension is absent). */
  keyUsage: KeyUsageType[];
  /** extendedKeyUsage OIDs (empty when the extension is absent). */
  extendedKeyUsage: string[];
  /** subjectKeyIdentifier, lowercase hex. */
  subjectKeyIdHex?: string;
  /** authorityKeyIdentifier keyIdentifier, lowercase hex. */
  authorityKeyIdHex?: string;
}

/** A parsed certificate together with exact byte ranges of its parts (views into `der`). */
export interface CertificateParts {
  der: Uint8Array;
  certificate: Certificate;
  /** The TBSCertificate exactly as signed. */
  tbsDer: Uint8Array;
  /** The subject Name DER exactly as encoded (OCSP issuerNameHash is a hash of this, for a CA). */
  subjectNameDer: Uint8Array;
  issuerNameDer: Uint8Array;
  /** The SubjectPublicKeyInfo DER. */
  spkiDer: Uint8Array;
  /** The subjectPublicKey BIT STRING value without the unused-bits octet (hashed for key ids / issuerKeyHash). */
  subjectPublicKeyBits: Uint8Array;
  facts: CertificateFacts;
}

// ---------------------------------------------------------------------------------------------------------
// Names

const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

export const NAME_OIDS = {
  commonName: '2.5.4.3',
  country: '2.5.4.6',
  locality: '2.5.4.7',
  state: '2.5.4.8',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
} as const;

function decodeOid(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new DerError('empty OBJECT IDENTIFIER');
  const arcs: bigint[] = [];
  let v = 0n;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    v = (v << 7n) | BigInt(b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0n;
    } else if (i === bytes.length - 1) {
      throw new DerError('truncated OBJECT IDENTIFIER');
    }
  }
  const first = arcs[0]!;
  const head = first < 40n ? [0n, first] : first < 80n ? [1n, first - 40n] : [2n, first - 80n];
  return [...head, ...arcs.slice(1)].join('.');
}

function decodeDirectoryString(buf: Uint8Array, tlv: Tlv): string | undefined {
  const c = Buffer.from(contentBytes(buf, tlv));
  switch (tlv.tag) {
    case 0x0c: // UTF8String
      return c.toString('utf8');
    case 0x13: // PrintableString
    case 0x16: // IA5String
    case 0x12: // NumericString
    case 0x1a: // VisibleString
      return c.toString('latin1');
    case 0x14: // TeletexString (treated as Latin-1, as most software does)
      return c.toString('latin1');
    case 0x1e: // BMPString, UTF-16BE
      return Buffer.from(c).swap16().toString('utf16le');
    case 0x1c: { // UniversalString, UTF-32BE
      let s = '';
      for (let i = 0; i + 3 < c.length; i += 4) s += String.fromCodePoint(c.readUInt32BE(i));
      return s;
    }
    default:
      return undefined;
  }
}

function escapeRfc4514(value: string): string {
  let out = value.replace(/[\\"+,;<>]/g, (ch) => `\\${ch}`).replace(/\0/g, '\\00');
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.endsWith(' ') && !out.endsWith('\\ ')) out = `${out.slice(0, -1)}\\ `;
  return out;
}

interface RawAttribute {
  oid: string;
  /** The full TLV of the attribute value. */
  valueDer: Uint8Array;
  valueTlv: Tlv;
}

function readNameAttributes(nameDer: Uint8Array): RawAttribute[][] {
  const name = readSingle(nameDer, TAG.SEQUENCE);
  return readChildren(nameDer, name).map((rdn) => {
    if (rdn.tag !== TAG.SET) throw new DerError('RelativeDistinguishedName is not a SET');
    const atvs = readChildren(nameDer, rdn);
    if (atvs.length === 0) throw new DerError('empty RelativeDistinguishedName');
    return atvs.map((atv) => {
      if (atv.tag !== TAG.SEQUENCE) throw new DerError('AttributeTypeAndValue is not a SEQUENCE');
      const [type, value, ...rest] = readChildren(nameDer, atv);
      if (!type || !value || rest.length || type.tag !== TAG.OID) throw new DerError('malformed AttributeTypeAndValue');
      return { oid: decodeOid(contentBytes(nameDer, type)), valueDer: tlvBytes(nameDer, value), valueTlv: value };
    });
  });
}

/** RFC 4514 string of a DER Name (most specific RDN first). */
export function nameToString(nameDer: Uint8Array): string {
  return readNameAttributes(nameDer)
    .reverse()
    .map((rdn) =>
      rdn
        .map((a) => {
          const key = SHORT_NAMES[a.oid] ?? a.oid;
          const text = decodeDirectoryString(nameDer, a.valueTlv);
          return `${key}=${text === undefined ? `#${toHex(a.valueDer)}` : escapeRfc4514(text)}`;
        })
        .join('+'),
    )
    .join(',');
}

/**
 * A DER Name as verification reports write it (read-asset.ts, from c2pa-rs's crJSON): "KEY=value" pairs in
 * certificate order (least specific first), joined with ", ", values unescaped.
 */
export function nameInCertificateOrder(nameDer: Uint8Array): string {
  return readNameAttributes(nameDer)
    .flat()
    .map((a) => `${SHORT_NAMES[a.oid] ?? a.oid}=${decodeDirectoryString(nameDer, a.valueTlv) ?? `#${toHex(a.valueDer)}`}`)
    .join(', ');
}

/**
 * An asn1-schema Name whose serialization is byte-for-byte `nameDer` (attribute values are carried as raw
 * DER, so string types and encodings of the original are kept). Used for issuer fields of certificates and
 * CRLs, which must match the issuer certificate's subject exactly.
 */
export function nameFromDer(nameDer: Uint8Array): Name {
  const name = new Name(
    readNameAttributes(nameDer).map(
      (rdn) =>
        new RelativeDistinguishedName(
          rdn.map((a) => new AttributeTypeAndValue({ type: a.oid, value: new AttributeValue({ anyValue: toArrayBuffer(a.valueDer) }) })),
        ),
    ),
  );
  const again = new Uint8Array(AsnConvert.serialize(name));
  if (!bytesEqual(again, nameDer)) throw new DerError('Name does not re-encode to the same DER (not DER-encoded?)');
  return name;
}

// ---------------------------------------------------------------------------------------------------------
// Certificates

/** keyUsage names in RFC 5280 bit order (the order facts list them in). */
const KEY_USAGE_ORDER: readonly KeyUsageType[] = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'crlSign',
  'encipherOnly',
  'decipherOnly',
];

/** RFC 5280 section 4.2.1.2 method (1): SHA-1 over the subjectPublicKey BIT STRING value (as OpenSSL's "hash"). */
export function keyIdentifierFromSpki(spkiDer: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha1').update(subjectPublicKeyBits(spkiDer)).digest());
}

/** The subjectPublicKey BIT STRING value of a DER SubjectPublicKeyInfo, without the unused-bits octet. */
export function subjectPublicKeyBits(spkiDer: Uint8Array): Uint8Array {
  const spki = readSingle(spkiDer, TAG.SEQUENCE);
  const [alg, bits, ...rest] = readChildren(spkiDer, spki);
  if (!alg || !bits || rest.length || alg.tag !== TAG.SEQUENCE || bits.tag !== TAG.BIT_STRING) {
    throw new DerError('malformed SubjectPublicKeyInfo');
  }
  const content = contentBytes(spkiDer, bits);
  if (content.length < 1 || content[0] !== 0) throw new DerError('subjectPublicKey BIT STRING has unused bits');
  return content.subarray(1);
}

function findExtension(cert: Certificate, oid: string) {
  return cert.tbsCertificate.extensions?.find((e) => e.extnID === oid);
}

function extensionValue<T>(cert: Certificate, oid: string, type: new () => T): T | undefined {
  const ext = findExtension(cert, oid);
  return ext ? AsnConvert.parse(ext.extnValue, type) : undefined;
}

/** Parses a DER certificate and locates its parts. Does not verify its signature. */
export function readCertificate(der: Uint8Array): CertificateParts {
  try {
    const outer = readSingle(der, TAG.SEQUENCE);
    const [tbs] = readChildren(der, outer);
    if (!tbs || tbs.tag !== TAG.SEQUENCE) throw new DerError('certificate has no TBSCertificate');
    const fields = readChildren(der, tbs);
    const offset = fields[0]?.tag === 0xa0 ? 1 : 0; // [0] EXPLICIT version
    const issuerTlv = fields[offset + 2];
    const subjectTlv = fields[offset + 4];
    const spkiTlv = fields[offset + 5];
    if (!issuerTlv || !subjectTlv || !spkiTlv) throw new DerError('TBSCertificate is missing fields');
    const tbsDer = tlvBytes(der, tbs);
    const subjectNameDer = tlvBytes(der, subjectTlv);
    const issuerNameDer = tlvBytes(der, issuerTlv);
    const spkiDer = tlvBytes(der, spkiTlv);

    const certificate = AsnConvert.parse(der, Certificate);
    const tbsCert = certificate.tbsCertificate;
    const bc = extensionValue(certificate, id_ce_basicConstraints, BasicConstraints);
    const ku = extensionValue(certificate, id_ce_keyUsage, KeyUsage);
    const eku = extensionValue(certificate, id_ce_extKeyUsage, ExtendedKeyUsage);
    const ski = extensionValue(certificate, id_ce_subjectKeyIdentifier, SubjectKeyIdentifier);
    const aki = extensionValue(certificate, id_ce_authorityKeyIdentifier, AuthorityKeyIdentifier);

    const facts: CertificateFacts = {
      serialHex: integerBytesToSerialHex(new Uint8Array(tbsCert.serialNumber)),
      subject: nameToString(subjectNameDer),
      issuer: nameToString(issuerNameDer),
      notBefore: tbsCert.validity.notBefore.getTime(),
      notAfter: tbsCert.validity.notAfter.getTime(),
      fingerprintSha256: createHash('sha256').update(der).digest('hex'),
      isCa: bc?.cA ?? false,
      keyUsage: ku ? KEY_USAGE_ORDER.filter((u) => ku.toJSON().includes(u)) : [],
      extendedKeyUsage: eku ? [...eku] : [],
    };
    if (bc?.pathLenConstraint !== undefined) facts.pathLength = bc.pathLenConstraint;
    if (ski) facts.subjectKeyIdHex = toHex(ski.buffer);
    if (aki?.keyIdentifier) facts.authorityKeyIdHex = toHex(aki.keyIdentifier.buffer);

    return {
      der,
      certificate,
      tbsDer,
      subjectNameDer,
      issuerNameDer,
      spkiDer,
      subjectPublicKeyBits: subjectPublicKeyBits(spkiDer),
      facts,
    };
  } catch (err) {
    if (err instanceof CertificateParseError) throw err;
    throw new CertificateParseError(`not a DER X.509 certificate: ${(err as Error).message}`, { cause: err });
  }
}

/** The facts of a DER certificate. */
export function parseCertificate(der: Uint8Array): CertificateFacts {
  return readCertificate(der).facts;
}

/** The e-mail addresses (rfc822Name) of a certificate's subjectAltName, in order; none without one or with one that does not parse. */
export function emailAddressesOf(parts: CertificateParts): string[] {
  try {
    const names = extensionValue(parts.certificate, id_ce_subjectAltName, SubjectAlternativeName) ?? [];
    return names.flatMap((name) => (name.rfc822Name === undefined ? [] : [name.rfc822Name]));
  } catch {
    return [];
  }
}

/** The key identifier a child (certificate or CRL) should name in its authorityKeyIdentifier. */
export function authorityKeyIdFor(issuer: CertificateParts): Uint8Array {
  return issuer.facts.subjectKeyIdHex !== undefined
    ? new Uint8Array(Buffer.from(issuer.facts.subjectKeyIdHex, 'hex'))
    : keyIdentifierFromSpki(issuer.spkiDer);
}
