import { Decoder, Encoder } from 'cbor-x';
import { C2PA_UUID } from './bmff-walk.js';

/**
 * The C2PA `uuid` box of purpose "merkle" each fragment of a signed fragmented MP4 carries (bmff_io.rs write_c2pa_box,
 * bmff_hash.rs BmffMerkleMap): size, `uuid`, the C2PA UUID, version and flags 0, "merkle\0", then the CBOR map
 * {uniqueId, localId, location, hashes}: which Merkle tree of the manifest's c2pa.hash.bmff assertion the fragment
 * belongs to, its leaf's position, and its proof (null when the kept row is the leaves themselves).
 */

/** A fragment's place in a Merkle tree, as its `merkle` box says. */
export interface BmffMerkleMap {
  uniqueId: number;
  localId: number;
  location: number;
  hashes: Uint8Array[] | null;
}

const MERKLE_PURPOSE = Buffer.from('merkle\0', 'latin1');
/** size, `uuid`, the extended type, version and flags, the purpose. */
const HEADER_BYTES = 8 + 16 + 4 + MERKLE_PURPOSE.length;

// As serde_cbor writes the struct: a definite map with text keys in field order, byte strings as plain bstr.
const cbor = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false, variableMapSize: true });
const decoder = new Decoder({ useRecords: false, mapsAsObjects: true });

/** The whole `merkle` box for `map`. Its size depends only on the proof's length and the integers' values. */
export function merkleBoxBytes(map: BmffMerkleMap): Buffer {
  const fields = new Map<string, unknown>([
    ['uniqueId', map.uniqueId],
    ['localId', map.localId],
    ['location', map.location],
    ['hashes', map.hashes === null ? null : map.hashes.map((h) => Buffer.from(h))],
  ]);
  const body = Buffer.from(cbor.encode(fields));
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(HEADER_BYTES + body.length, 0);
  header.write('uuid', 4, 'latin1');
  C2PA_UUID.copy(header, 8);
  MERKLE_PURPOSE.copy(header, 28);
  return Buffer.concat([header, body]);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/** The map of a `merkle` box's payload (the bytes after its purpose), or undefined when it is not one c2pa-rs would read. */
export function merkleMapOf(payload: Uint8Array): BmffMerkleMap | undefined {
  let value: unknown;
  try {
    value = decoder.decode(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { uniqueId, localId, location, hashes } = value as Record<string, unknown>;
  if (!isCount(uniqueId) || !isCount(localId) || !isCount(location)) return undefined;
  if (hashes !== null && hashes !== undefined && !(Array.isArray(hashes) && hashes.every((h) => h instanceof Uint8Array))) return undefined;
  return { uniqueId, localId, location, hashes: (hashes as Uint8Array[] | null | undefined) ?? null };
}
