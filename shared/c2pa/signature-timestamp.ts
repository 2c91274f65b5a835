import { X509Certificate } from 'node:crypto';
import { ContentInfo, SignedData, id_signedData } from '@peculiar/asn1-cms';
import { AsnConvert } from '@peculiar/asn1-schema';
import { TimeStampResp } from '@peculiar/asn1-tsp';
import { decode } from 'cbor-x';
import { anchorReached } from '../trust/chain.js';
import type { Anchor } from '../trust/store.js';
import { boxAt, looksLikeManifestStore, superboxLabel, type Box } from './manifest-store-label.js';
import type { TimestampInfo } from './read-asset.js';

/**
 * The certificates of the RFC 3161 timestamp on a JPEG's active manifest signature, read from the file itself:
 * c2pa-rs does not check a C2PA 1.x claim's TSA chain (and reports timeStamp.trusted anyway), so the service checks
 * it from these. Only JPEG (APP11 JUMBF segments) is read here; other formats give undefined.
 */
export interface SignatureTimestamp {
  /** 1 for a C2PA 1.x claim (c2pa.claim), 2 for c2pa.claim.v2. */
  claimVersion: 1 | 2;
  /** The TSA's certificate (the token's signer) and the other certificates the token carries. */
  signer: X509Certificate | undefined;
  certificates: X509Certificate[];
}

/** The manifest store of a JPEG: its APP11 JUMBF segments ("JP", box instance, sequence number) joined. */
function jpegManifestStore(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  for (let at = 2; at + 4 <= bytes.length && bytes[at] === 0xff; ) {
    const marker = bytes[at + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // start of scan: no more metadata segments
    const length = bytes.readUInt16BE(at + 2);
    const segment = bytes.subarray(at + 4, at + 2 + length);
    if (marker === 0xeb && segment.length > 16 && segment.toString('latin1', 0, 2) === 'JP') {
      const sequence = segment.readUInt32BE(4);
      // The first segment holds the box from its header; the others repeat the header (LBox, TBox) before the data.
      const data = segment.subarray(8);
      if (sequence === 1) parts.push(data);
      else if (parts.length > 0) parts.push(data.subarray(8));
    }
    at += 2 + length;
  }
  return parts.length ? Buffer.concat(parts) : undefined;
}

function children(bytes: Buffer, box: Box): Box[] {
  const out: Box[] = [];
  for (let at = box.payload; at < box.end; ) {
    const child = boxAt(bytes, at, box.end);
    if (!child) break;
    out.push(child);
    at = child.end;
  }
  return out;
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

export function signatureTimestampOf(file: Uint8Array): SignatureTimestamp | undefined {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  // A JPEG carries its store in APP11 segments; a detached store (a sidecar, a remote manifest) is the JUMBF itself.
  const detached = looksLikeManifestStore(bytes);
  if (!detached && (bytes[0] !== 0xff || bytes[1] !== 0xd8)) return undefined;
  const store = detached ? bytes : jpegManifestStore(bytes);
  const root = store && boxAt(store, 0, store.length);
  if (!store || !root || superboxLabel(store, root) !== 'c2pa') return undefined;
  const manifests = children(store, root).filter((b) => b.type === 'jumb');
  const active = manifests[manifests.length - 1];
  if (!active) return undefined;
  const parts = children(store, active).filter((b) => b.type === 'jumb');
  const labels = parts.map((b) => superboxLabel(store, b));
  const claimVersion = labels.includes('c2pa.claim.v2') ? 2 : 1;
  const signatureBox = parts[labels.indexOf('c2pa.signature')];
  const cbor = signatureBox && children(store, signatureBox).find((b) => b.type === 'cbor');
  if (!cbor) return undefined;
  let cose: unknown = decode(store.subarray(cbor.payload, cbor.end));
  if (cose && typeof cose === 'object' && 'value' in cose && !Array.isArray(cose)) cose = (cose as { value: unknown }).value; // tag 18
  if (!Array.isArray(cose)) return undefined;
  const unprotected = (cose[1] instanceof Map ? Object.fromEntries(cose[1]) : cose[1]) as CoseHeaders | undefined;
  const token = (unprotected?.sigTst2 ?? unprotected?.sigTst)?.tstTokens?.[0]?.val;
  if (!token) return { claimVersion, signer: undefined, certificates: [] };
  return { claimVersion, ...tokenCertificates(token) };
}

const ID_KP_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

/**
 * The timestamp as the service judges it: trusted only when c2pa-rs validated the token and the TSA certificate
 * (EKU timeStamping) chains to one of `tsaAnchors`, checked here from the token's certificates. When the token cannot
 * be read here (not a JPEG), c2pa-rs's answer stands for a v2 claim; a v1 claim's TSA, which c2pa-rs never checks,
 * is then not trusted.
 */
export function checkedTimestamp(timestamp: TimestampInfo, claimVersion: number | null, file: Uint8Array | undefined, tsaAnchors: readonly Anchor[]): TimestampInfo {
  let found: SignatureTimestamp | undefined;
  try {
    found = file && signatureTimestampOf(file);
  } catch {
    found = undefined; // a token that does not parse is judged by c2pa-rs's codes alone
  }
  if (found?.signer) {
    const anchor = timestamp.validated && found.signer.keyUsage?.includes(ID_KP_TIME_STAMPING) ? anchorReached(found.signer, found.certificates, tsaAnchors) : undefined;
    return { ...timestamp, trusted: anchor !== undefined, trust_source: anchor?.source ?? null };
  }
  return { ...timestamp, trusted: claimVersion === 1 ? false : timestamp.trusted, trust_source: null };
}
