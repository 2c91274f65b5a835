import { X509Certificate } from 'node:crypto';
import { open } from 'node:fs/promises';
import { ContentInfo, SignedData, id_signedData } from '@peculiar/asn1-cms';
import { AsnConvert } from '@peculiar/asn1-schema';
import { TimeStampResp } from '@peculiar/asn1-tsp';
import { decode } from 'cbor-x';
import { anchorReached } from '../trust/chain.js';
import type { Anchor, TrustSource } from '../trust/store.js';
import { boxAt, superboxLabel, type Box } from './manifest-store-label.js';
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

/** GIF's application extension for C2PA: introducer, label, block size, then "C2PA_GIF" and its 3-byte code. */
const GIF_C2PA_EXTENSION = Buffer.from('\x21\xff\x0bC2PA_GIF', 'latin1');

/** The manifest store of a GIF: the data sub-blocks (a length byte, then up to 255 bytes) of its C2PA extension, joined. */
function gifManifestStore(bytes: Buffer): Buffer | undefined {
  const at = bytes.indexOf(GIF_C2PA_EXTENSION);
  if (at < 0) return undefined;
  const parts: Buffer[] = [];
  for (let p = at + GIF_C2PA_EXTENSION.length + 3; p < bytes.length && bytes[p] !== 0; p += 1 + bytes[p]!) {
    parts.push(bytes.subarray(p + 1, Math.min(bytes.length, p + 1 + bytes[p]!)));
  }
  return parts.length ? Buffer.concat(parts) : undefined;
}

/** The manifest store of an SVG: the base64 text of its c2pa:manifest metadata element. */
function svgManifestStore(bytes: Buffer): Buffer | undefined {
  const found = /<c2pa:manifest(?:\s[^>]*)?>([A-Za-z0-9+/=\s]+)<\/c2pa:manifest>/.exec(bytes.toString('utf8'));
  return found ? Buffer.from(found[1]!.replace(/\s+/g, ''), 'base64') : undefined;
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

/**
 * The timestamp of the active manifest's signature in a manifest store, when its last manifest is `activeLabel` (so a
 * store that is not the file's own, such as one inside an embedded picture, is not taken for it).
 */
function storeTimestamp(store: Buffer, activeLabel: string | null): SignatureTimestamp | undefined {
  const root = boxAt(store, 0, store.length);
  if (!root || superboxLabel(store, root) !== 'c2pa') return undefined;
  const manifests = children(store, root).filter((b) => b.type === 'jumb');
  const active = manifests[manifests.length - 1];
  if (!active || (activeLabel !== null && superboxLabel(store, active) !== activeLabel)) return undefined;
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

/**
 * Where a contiguous manifest store may start: its `jumb` superbox, whose first child is the `jumd` description box
 * with the C2PA content type (UUID 63327061-0011-0010-8000-00AA00389B71). Every format but JPEG, GIF and SVG (read
 * above) carries the store as one run of bytes: PNG caBX, WebP and RIFF C2PA chunks, the BMFF uuid box, JPEG XL,
 * TIFF/DNG, ID3 GEOB, FLAC, a .c2pa sidecar.
 */
const C2PA_JUMD = Buffer.from('6a756d646332706100110010800000aa00389b71', 'hex');
/** jumb box size and type, and the jumd box size, before the jumd type. */
const BEFORE_JUMD = 12;

function* storeStarts(bytes: Buffer, base = 0): Generator<number> {
  for (let at = bytes.indexOf(C2PA_JUMD); at >= 0; at = bytes.indexOf(C2PA_JUMD, at + 1)) {
    if (at >= BEFORE_JUMD && bytes.toString('latin1', at - 8, at - 4) === 'jumb') yield base + at - BEFORE_JUMD;
  }
}

/** The timestamp of the file's active manifest signature (`activeLabel`, as c2pa-rs names it), read from its bytes. */
export function signatureTimestampOf(file: Uint8Array, activeLabel: string | null): SignatureTimestamp | undefined {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  // The formats whose store is not one run of bytes: JPEG (APP11 segments), GIF (sub-blocks), SVG (base64 text).
  const split = bytes[0] === 0xff && bytes[1] === 0xd8 ? jpegManifestStore : bytes.toString('latin1', 0, 4) === 'GIF8' ? gifManifestStore : undefined;
  const store = split ? split(bytes) : bytes.includes('<c2pa:manifest') ? svgManifestStore(bytes) : undefined;
  if (split || store) return store && storeTimestamp(store, activeLabel);
  for (const start of storeStarts(bytes)) {
    const root = boxAt(bytes, start, bytes.length);
    const found = root && storeTimestamp(bytes.subarray(start, root.end), activeLabel);
    if (found) return found;
  }
  return undefined;
}

const CHUNK = 8 * 1024 * 1024;
/** Larger than any manifest store the service reads (a store holds claims, signatures and thumbnails). */
const MAX_STORE_BYTES = 256 * 1024 * 1024;

/**
 * signatureTimestampOf for a file too large to read whole (video and audio over MAX_UPLOAD_BYTES): one sequential
 * pass in CHUNK reads, overlapping by the pattern's length so a store straddling two reads is found, and each
 * candidate store read on its own.
 */
export async function signatureTimestampOfFile(filePath: string, activeLabel: string | null): Promise<SignatureTimestamp | undefined> {
  const handle = await open(filePath, 'r');
  try {
    const { size } = await handle.stat();
    const overlap = BEFORE_JUMD + C2PA_JUMD.length;
    const chunk = Buffer.alloc(CHUNK);
    for (let offset = 0; offset < size; offset += CHUNK - overlap) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, offset);
      for (const start of storeStarts(chunk.subarray(0, bytesRead), offset)) {
        // The superbox's length: 32 bits, or 1 and then 64 bits (ISO/IEC 19566-5, as ISO BMFF boxes).
        const header = Buffer.alloc(16);
        const { bytesRead: got } = await handle.read(header, 0, 16, start);
        const length = header.readUInt32BE(0) === 1 && got === 16 ? Number(header.readBigUInt64BE(8)) : header.readUInt32BE(0);
        if (length < 16 || length > MAX_STORE_BYTES || start + length > size) continue;
        const store = Buffer.alloc(length);
        await handle.read(store, 0, length, start);
        const found = storeTimestamp(store, activeLabel);
        if (found) return found;
      }
      if (offset + bytesRead >= size) break;
    }
    return undefined;
  } finally {
    await handle.close();
  }
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
