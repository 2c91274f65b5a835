import { C2paError } from './errors.js';

/**
 * The active manifest's label (urn:c2pa:...) of a manifest store, read from its JUMBF boxes (ISO/IEC 19566-5) alone:
 * the store is a `jumb` superbox labelled `c2pa` whose child superboxes are the manifests, and the active one is the
 * last (C2PA 2.x, "Manifest Store"). Each superbox starts with its `jumd` description box: a 16-byte content type, a
 * toggles byte and, when toggle 0x02 is set, the label as null-terminated UTF-8. A c2pa-rs reader gives the same
 * answer but also parses every claim, signature and timestamp token in the store, several milliseconds per store.
 */
export function activeManifestLabel(store: Uint8Array): string {
  const bytes = Buffer.from(store.buffer, store.byteOffset, store.byteLength);
  const root = boxAt(bytes, 0, bytes.length);
  if (!root || root.type !== 'jumb' || superboxLabel(bytes, root) !== 'c2pa') throw new C2paError('not a C2PA manifest store (no c2pa JUMBF superbox)');
  let label: string | undefined;
  // Children after the description box: the manifests, in order.
  for (let at = boxAt(bytes, root.payload, root.end)!.end; at < root.end; ) {
    const child = boxAt(bytes, at, root.end);
    if (!child) throw new C2paError('the manifest store has a damaged JUMBF box');
    if (child.type === 'jumb') label = superboxLabel(bytes, child) ?? label;
    at = child.end;
  }
  if (!label?.startsWith('urn:')) throw new C2paError('the manifest store has no active manifest');
  return label;
}

export interface Box {
  type: string;
  payload: number;
  end: number;
}

/** The box at `at` (within `limit`), or undefined when its header or length does not fit. */
export function boxAt(bytes: Buffer, at: number, limit: number): Box | undefined {
  if (at + 8 > limit) return undefined;
  let size = bytes.readUInt32BE(at);
  let header = 8;
  if (size === 1) {
    if (at + 16 > limit) return undefined;
    size = Number(bytes.readBigUInt64BE(at + 8));
    header = 16;
  } else if (size === 0) {
    size = limit - at;
  }
  if (size < header || at + size > limit) return undefined;
  return { type: bytes.toString('latin1', at + 4, at + 8), payload: at + header, end: at + size };
}

/** A superbox's label, from its first child, the `jumd` description box; undefined without one. */
export function superboxLabel(bytes: Buffer, superbox: Box): string | undefined {
  const description = boxAt(bytes, superbox.payload, superbox.end);
  if (!description || description.type !== 'jumd') return undefined;
  const toggles = description.payload + 16;
  if (toggles >= description.end || (bytes[toggles]! & 0x02) === 0) return undefined;
  const nul = bytes.indexOf(0, toggles + 1);
  if (nul < 0 || nul >= description.end) return undefined;
  return bytes.toString('utf8', toggles + 1, nul);
}

/**
 * Whether bytes start like a detached manifest store (a .c2pa sidecar, application/c2pa): a `jumb` superbox whose
 * first child is its `jumd` description box. The first 16 bytes suffice; c2pa-rs judges the rest.
 */
export function looksLikeManifestStore(head: Uint8Array): boolean {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  return bytes.length >= 16 && bytes.toString('latin1', 4, 8) === 'jumb' && bytes.toString('latin1', 12, 16) === 'jumd';
}
