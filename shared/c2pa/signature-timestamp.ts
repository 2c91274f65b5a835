import { X509Certificate } from 'node:crypto';
import { ContentInfo, SignedData, id_signedData } from '@peculiar/asn1-cms';
import { AsnConvert } from '@peculiar/asn1-schema';
import { TimeStampResp } from '@peculiar/asn1-tsp';
import { anchorReached } from '../trust/chain.js';
import type { Anchor, TrustSource } from '../trust/store.js';
import { activeSignatureOf, activeSignatureOfFile, type ActiveSignature } from './signature-cose.js';
import type { ReaderManifest, StatusLists } from './reader-json.js';

export interface TimestampInfo {
  time: string | null;
  /** timeStamp.validated: the token stamps this signature and its TSA signature is correct. */
  validated: boolean;
  /**
   * timeStamp.trusted as c2pa-rs reports it; the API replaces it with its own check (the TSA's chain reaches a TSA
   * anchor in use), since c2pa-rs does not check a C2PA 1.x claim's TSA at all.
   */
  trusted: boolean;
  /** Whose anchor the TSA's chain reaches, when the service checked it (see trusted); null otherwise. */
  trust_source?: TrustSource | null;
  /** Any timeStamp.* codes c2pa-rs reported. */
  codes: string[];
}

/** The timestamp as c2pa-rs reports it for the active manifest; null when the signature has none. */
export function timestampOf(manifest: ReaderManifest | undefined, status: StatusLists): TimestampInfo | null {
  const codes = [...status.success, ...status.informational, ...status.failure].filter((c) => c.startsWith('timeStamp.'));
  const time = manifest?.signature_info?.time ?? null;
  if (!time && codes.length === 0) return null;
  return { time, validated: status.success.includes('timeStamp.validated'), trusted: status.success.includes('timeStamp.trusted'), codes };
}

/**
 * The certificates of the RFC 3161 timestamp on a file's active manifest signature, read from the file itself:
 * c2pa-rs does not check a C2PA 1.x claim's TSA chain (and reports timeStamp.trusted anyway), so the service checks
 * it from these. JPEG (APP11 JUMBF segments), GIF (sub-blocks), SVG (base64) and every format that carries its store
 * as one run of bytes are read.
 */
export interface SignatureTimestamp {
  /** 1 for a C2PA 1.x claim (c2pa.claim), 2 for c2pa.claim.v2. */
  claimVersion: 1 | 2;
  /** The TSA's certificate (the token's signer) and the other certificates the token carries. */
  signer: X509Certificate | undefined;
  certificates: X509Certificate[];
}

interface CoseHeaders {
  sigTst?: { tstTokens?: { val?: Uint8Array }[] };
  sigTst2?: { tstTokens?: { val?: Uint8Array }[] };
}

/** A token as a ContentInfo, or (as C2PA 1.x signers wrote it) the whole TimeStampResp around it. */
function contentInfoOf(token: Uint8Array): ContentInfo | undefined {
  // Its own buffer: asn1-schema reads whole ArrayBuffers, and cbor-x gives views into the store.
  const der = token.slice();
  try {
    return AsnConvert.parse(der, ContentInfo);
  } catch {
    return AsnConvert.parse(der, TimeStampResp).timeStampToken;
  }
}

function tokenCertificates(token: Uint8Array): Pick<SignatureTimestamp, 'signer' | 'certificates'> {
  const info = contentInfoOf(token);
  if (!info) return { signer: undefined, certificates: [] };
  if (info.contentType !== id_signedData) return { signer: undefined, certificates: [] };
  const signed = AsnConvert.parse(info.content, SignedData);
  const certificates = Array.from(signed.certificates ?? [])
    .filter((c) => c.certificate)
    .map((c) => new X509Certificate(Buffer.from(AsnConvert.serialize(c.certificate!))));
  const sid = signed.signerInfos[0]?.sid;
  const serial = sid?.issuerAndSerialNumber ? Buffer.from(sid.issuerAndSerialNumber.serialNumber).toString('hex').replace(/^0+/, '').toUpperCase() : undefined;
  const signer = certificates.find((c) => serial !== undefined && c.serialNumber.replace(/^0+/, '').toUpperCase() === serial) ?? certificates[0];
  return { signer, certificates };
}

function timestampOfSignature(signature: ActiveSignature | undefined): SignatureTimestamp | undefined {
  if (!signature) return undefined;
  const unprotected = signature.unprotected as CoseHeaders;
  const token = (unprotected.sigTst2 ?? unprotected.sigTst)?.tstTokens?.[0]?.val;
  if (!token) return { claimVersion: signature.claimVersion, signer: undefined, certificates: [] };
  return { claimVersion: signature.claimVersion, ...tokenCertificates(token) };
}

/** The timestamp of the file's active manifest signature (`activeLabel`, as c2pa-rs names it), read from its bytes. */
export function signatureTimestampOf(file: Uint8Array, activeLabel: string | null): SignatureTimestamp | undefined {
  return timestampOfSignature(activeSignatureOf(file, activeLabel));
}

/** signatureTimestampOf for a file too large to read whole (signature-cose.ts reads it in chunks). */
export async function signatureTimestampOfFile(filePath: string, activeLabel: string | null): Promise<SignatureTimestamp | undefined> {
  return timestampOfSignature(await activeSignatureOfFile(filePath, activeLabel));
}

const ID_KP_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

/**
 * The timestamp as the service judges it: trusted only when c2pa-rs validated the token and the TSA certificate
 * (EKU timeStamping) chains to one of `tsaAnchors`, checked here from the token's certificates, for a v1 claim (whose
 * TSA c2pa-rs never checks) and a v2 claim alike (c2pa-rs does not keep TSA anchors apart from claim-signer ones).
 * `file`: the bytes, or the path of a file too large to read whole. When the token cannot be found or read here (a
 * token that does not parse, a store in a shape not read here) the timestamp is not trusted: nothing checked its TSA.
 */
export async function checkedTimestamp(timestamp: TimestampInfo, activeLabel: string | null, file: Uint8Array | string, tsaAnchors: readonly Anchor[]): Promise<TimestampInfo> {
  let found: SignatureTimestamp | undefined;
  try {
    found = typeof file === 'string' ? await signatureTimestampOfFile(file, activeLabel) : signatureTimestampOf(file, activeLabel);
  } catch {
    found = undefined;
  }
  const anchor = found?.signer && timestamp.validated && found.signer.keyUsage?.includes(ID_KP_TIME_STAMPING) ? anchorReached(found.signer, found.certificates, tsaAnchors) : undefined;
  return { ...timestamp, trusted: anchor !== undefined, trust_source: anchor?.source ?? null };
}
