/**
 * The active manifest's claim signature (COSE_Sign1) found in a file's bytes: its headers, which c2pa-rs's reader does
 * not hand out, for what the service reads from them itself (the timestamp's certificates, signature-timestamp.ts;
 * the stapled OCSP answer, stapled-ocsp.ts), and the manifest's CAWG identity assertions, whose own signatures carry
 * the people's certificates (identity-signature.ts). JPEG (APP11 JUMBF segments), GIF (sub-blocks), SVG (base64) and
 * every format that carries its store as one run of bytes are read.
 */
import { open } from 'node:fs/promises';
import { decode } from 'cbor-x';
import { isIdentityLabel } from './identities.js';
import { boxAt, superboxLabel, type Box } from './manifest-store-label.js';

/** A COSE_Sign1's headers. */
export interface CoseHeaders {
  /** The unprotected header (text labels: sigTst, sigTst2, rVals, pad...). */
  unprotected: Record<string, unknown>;
  /** The certificate chain (x5chain, label 33) of the protected header, else of the unprotected one; leaf first; empty when absent. */
  x5chain: Uint8Array[];
}

/** The active manifest's signature: its claim version and COSE headers, and its identity assertions. */
export interface ActiveSignature extends CoseHeaders {
  /** 1 for a C2PA 1.x claim (c2pa.claim), 2 for c2pa.claim.v2. */
  claimVersion: 1 | 2;
  /** The CBOR of the manifest's CAWG identity assertions (cawg.identity, cawg.identity__1...) by label, undecoded. */
  identityAssertions: Map<string, Uint8Array>;
}

/** More identity assertions than anyone signs with: the rest are not read (a hostile store may hold thousands). */
const MAX_IDENTITY_ASSERTIONS = 16;

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

/** The active manifest's signature in a manifest store, when its last manifest is `activeLabel` (so a store that is
 * not the file's own, such as one inside an embedded picture, is not taken for it). */
function storeSignature(store: Buffer, activeLabel: string | null): ActiveSignature | undefined {
  const root = boxAt(store, 0, store.length);
  if (!root || superboxLabel(store, root) !== 'c2pa') return undefined;
  const manifests = children(store, root).filter((b) => b.type === 'jumb');
  const active = manifests[manifests.length - 1];
  if (!active || (activeLabel !== null && superboxLabel(store, active) !== activeLabel)) return undefined;
  const parts = children(store, active).filter((b) => b.type === 'jumb');
  const labels = parts.map((b) => superboxLabel(store, b));
  const claimVersion = labels.includes('c2pa.claim.v2') ? 2 : 1;
  const signature = cborContent(store, parts[labels.indexOf('c2pa.signature')]);
  const headers = signature && coseHeadersOf(signature);
  if (!headers) return undefined;
  return { claimVersion, ...headers, identityAssertions: identityAssertionsIn(store, parts[labels.indexOf('c2pa.assertions')]) };
}

/** The payload of a superbox's `cbor` content box. */
function cborContent(store: Buffer, superbox: Box | undefined): Buffer | undefined {
  const cbor = superbox && children(store, superbox).find((b) => b.type === 'cbor');
  return cbor && store.subarray(cbor.payload, cbor.end);
}

/** The identity assertions of an assertion store (c2pa.assertions), by label, the first MAX_IDENTITY_ASSERTIONS. */
function identityAssertionsIn(store: Buffer, assertionStore: Box | undefined): Map<string, Uint8Array> {
  const found = new Map<string, Uint8Array>();
  for (const box of assertionStore ? children(store, assertionStore) : []) {
    if (found.size >= MAX_IDENTITY_ASSERTIONS) break;
    const label = box.type === 'jumb' ? superboxLabel(store, box) : undefined;
    const cbor = label && isIdentityLabel(label) ? cborContent(store, box) : undefined;
    if (label && cbor) found.set(label, cbor);
  }
  return found;
}

/** The headers of a COSE_Sign1 (tagged 18 or not); undefined when it is not one. Throws on bytes that are not CBOR. */
export function coseHeadersOf(sign1: Uint8Array): CoseHeaders | undefined {
  let cose: unknown = decode(sign1);
  if (cose && typeof cose === 'object' && 'value' in cose && !Array.isArray(cose)) cose = (cose as { value: unknown }).value; // tag 18
  if (!Array.isArray(cose)) return undefined;
  const unprotected = (cose[1] instanceof Map ? Object.fromEntries(cose[1]) : (cose[1] ?? {})) as Record<string, unknown>;
  const x5chain = x5chainIn(protectedHeaderOf(cose[0]));
  // Where c2pa-rs looks next: signatures of C2PA 1.x claims may carry the chain in the unprotected header.
  return { unprotected, x5chain: x5chain.length ? x5chain : x5chainIn(unprotected) };
}

/** A protected header bstr decoded; undefined when empty or not CBOR. */
function protectedHeaderOf(protectedBytes: unknown): unknown {
  if (!(protectedBytes instanceof Uint8Array) || protectedBytes.byteLength === 0) return undefined;
  try {
    return decode(protectedBytes);
  } catch {
    return undefined;
  }
}

/** x5chain of a header, under label 33 or (as C2PA 1.x wrote it) "x5chain": one certificate or an array of them. */
function x5chainIn(header: unknown): Uint8Array[] {
  const get = (label: number | string) => (header instanceof Map ? header.get(label) : (header as Record<string, unknown> | undefined)?.[String(label)]);
  const chain = get(33) ?? get('x5chain');
  const list = Array.isArray(chain) ? chain : [chain];
  return list.filter((c): c is Uint8Array => c instanceof Uint8Array);
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

/** The file's active manifest signature (`activeLabel`, as c2pa-rs names it), read from its bytes. */
export function activeSignatureOf(file: Uint8Array, activeLabel: string | null): ActiveSignature | undefined {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  // The formats whose store is not one run of bytes: JPEG (APP11 segments), GIF (sub-blocks), SVG (base64 text).
  const split = bytes[0] === 0xff && bytes[1] === 0xd8 ? jpegManifestStore : bytes.toString('latin1', 0, 4) === 'GIF8' ? gifManifestStore : undefined;
  const store = split ? split(bytes) : bytes.includes('<c2pa:manifest') ? svgManifestStore(bytes) : undefined;
  if (split || store) return store && storeSignature(store, activeLabel);
  for (const start of storeStarts(bytes)) {
    const root = boxAt(bytes, start, bytes.length);
    const found = root && storeSignature(bytes.subarray(start, root.end), activeLabel);
    if (found) return found;
  }
  return undefined;
}

/** activeSignatureOf or, for the path of a file too large to read whole, activeSignatureOfFile; undefined when unreadable. */
export async function activeSignatureIn(file: Uint8Array | string, activeLabel: string | null): Promise<ActiveSignature | undefined> {
  try {
    return typeof file === 'string' ? await activeSignatureOfFile(file, activeLabel) : activeSignatureOf(file, activeLabel);
  } catch {
    return undefined;
  }
}

const CHUNK = 8 * 1024 * 1024;
/** Larger than any manifest store the service reads (a store holds claims, signatures and thumbnails). */
const MAX_STORE_BYTES = 256 * 1024 * 1024;

/**
 * activeSignatureOf for a file too large to read whole (video and audio over MAX_UPLOAD_BYTES): one sequential
 * pass in CHUNK reads, overlapping by the pattern's length so a store straddling two reads is found, and each
 * candidate store read on its own.
 */
export async function activeSignatureOfFile(filePath: string, activeLabel: string | null): Promise<ActiveSignature | undefined> {
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
        const found = storeSignature(store, activeLabel);
        if (found) return found;
      }
      if (offset + bytesRead >= size) break;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

