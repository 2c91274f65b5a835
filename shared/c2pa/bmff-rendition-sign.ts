/**
 * Signs a fragmented MP4 rendition (an init segment and its media segments, in order: a DASH or HLS/CMAF
 * representation) as c2pa-rs's sign_fragmented_files does, which c2pa-wasm lacks, in bounded memory, as named steps:
 *
 * 1. check: the rendition's shape (bmff-rendition-check.ts);
 * 2. segments: each media segment written with room for its `merkle` box right before its `moof` (where c2pa-rs puts
 *    it; the box's size is known from the tree's shape alone), its offsets moved (bmff-layout.ts: `tfhd` base data
 *    offsets, a `sidx` first_offset), and hashed as it is written: the Merkle tree's leaf (the default exclusions leave
 *    the box out, so the leaf does not depend on what it will say);
 * 3. tree: the tree over the leaves (bmff-merkle-tree.ts), each segment's proof written into its room;
 * 4. init: the init segment signed streamed (bmff-sign.ts) with c2pa.hash.bmff.v3 carrying the tree (uniqueId 1,
 *    localId 1, count, alg, initHash: the init segment's own hash, hashes: the kept row) and no file-level hash;
 * 5. check: the manifest read back out of the signed init segment and validated by c2pa-rs, and every segment checked
 *    against it as c2pa-rs's fromBlobFragment checks one (bmff-fragment-check.ts), while the segments' SHA-256s are
 *    computed on a thread of their own.
 *
 * Memory: a few chunks and one 32-byte leaf per segment. Disk: the signed copies, written into `outputDir`.
 */
import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bmffBoxesOf } from './bmff-c2pa-boxes.js';
import { segmentCheck } from './bmff-fragment-check.js';
import { planBmffLayout } from './bmff-layout.js';
import { merkleBoxBytes } from './bmff-merkle-box.js';
import { MERKLE_MAX_PROOFS, merkleLayers, merkleProof, merkleProofLength, merkleRowIndex } from './bmff-merkle-tree.js';
import { offsetFields } from './bmff-offset-fields.js';
import { activeBmffHash, embeddedBmffManifest } from './bmff-read.js';
import { checkRendition } from './bmff-rendition-check.js';
import { signBmffFile, type BmffBinding } from './bmff-sign.js';
import { BmffStreamHash, DEFAULT_BMFF_EXCLUSIONS } from './bmff-stream-hash.js';
import { bmffBoxTree, BmffFileReader } from './bmff-walk.js';
import { writeBmffBody, writeRoom } from './bmff-write.js';
import { C2paError } from './errors.js';
import { sha256OfFiles } from './file-sha256.js';
import type { SignableMimeType } from './media-type.js';
import { readManifestStore } from './read-asset.js';
import type { SignedFile, SignFileInput } from './sign-options.js';

/** A part of the rendition: where it is, and its file name (for messages). */
export interface RenditionPart {
  path: string;
  name: string;
}

export interface RenditionSignInput extends Omit<SignFileInput, 'sourcePath' | 'outputPath'> {
  init: RenditionPart;
  /** The media segments, in order. */
  segments: readonly RenditionPart[];
  /** An empty directory the signed init segment (`init`) and segments (`segment-1`, ...) are written to. */
  outputDir: string;
}

export interface SignedSegment {
  path: string;
  size: number;
  sha256: string;
}

export interface SignedRendition {
  init: SignedFile & { path: string };
  segments: SignedSegment[];
}

/** The tree every segment belongs to, as c2pa-rs numbers it when it signs one rendition. */
const TREE = { uniqueId: 1, localId: 1 } as const;
const ALG = 'sha256';
const LEAF_BYTES = 32;

/** The c2pa.hash.bmff.v3 assertion of a rendition: its Merkle tree, bound to the init segment by its hash; no file-level hash. */
function merkleAssertion(count: number, row: readonly Buffer[]): (initHash: Uint8Array) => Record<string, unknown> {
  return (initHash) => ({
    exclusions: DEFAULT_BMFF_EXCLUSIONS,
    alg: ALG,
    merkle: [{ ...TREE, count, alg: ALG, initHash: [...initHash], hashes: row.map((h) => [...h]) }],
    name: 'jumbf manifest',
  });
}

/** A segment written with its room, and the leaf it hashed to. */
interface WrittenSegment {
  path: string;
  room: { offset: number; size: number };
  leaf: Buffer;
}

/** Step 2 for one segment: written to `outputPath` with room for the `merkle` box of leaf `location`, and hashed. */
async function writeSegment(segment: RenditionPart, location: number, count: number, outputPath: string): Promise<WrittenSegment> {
  const handle = await open(segment.path, 'r');
  try {
    const file = new BmffFileReader(handle, (await handle.stat()).size);
    const top = await bmffBoxesOf(file, await bmffBoxTree(file));
    const moof = top.boxes.find((b) => b.type === 'moof')!;
    const placeholder = Array.from({ length: merkleProofLength(count, location) }, () => Buffer.alloc(LEAF_BYTES));
    const roomSize = merkleBoxBytes({ ...TREE, location, hashes: placeholder.length ? placeholder : null }).length;
    const layout = await planBmffLayout(file, top, await offsetFields(file, top.tree), roomSize, { at: moof.offset });
    const hash = new BmffStreamHash(layout.boxes);
    await writeBmffBody(handle, file, layout, outputPath, (chunk) => hash.update(chunk));
    return { path: outputPath, room: layout.room, leaf: hash.digest() };
  } finally {
    await handle.close();
  }
}

/**
 * Step 5: the signed init segment's manifest validated by c2pa-rs (under the chain's own issuer), and every segment
 * checked against its BMFF hash. Anything else means this code wrote a rendition that does not verify.
 */
function renditionCheck(segmentPaths: readonly string[]): BmffBinding['check'] {
  return async (initPath, mimeType, anchor) => {
    const embedded = await embeddedBmffManifest(initPath);
    const store = 'store' in embedded ? embedded.store : undefined;
    if (!store) throw new C2paError(`the signed ${mimeType} init segment carries no manifest`);
    const report = await readManifestStore(store, { trustAnchorsPem: anchor });
    // Read alone, c2pa-rs cannot judge the binding (it has no segments): that is judged here.
    const failures = report.status.failure.filter((c) => c !== 'signingCredential.untrusted' && !c.startsWith('assertion.bmffHash.'));
    if (failures.length) throw new C2paError(`the signed init segment does not verify: ${failures.join(', ')}`);
    const found = await activeBmffHash(store);
    const check = found && (await segmentCheck(initPath, found.assertion, found.options));
    if (!check) throw new C2paError('the signed init segment has no Merkle BMFF hash this service can check');
    for (const [i, segment] of segmentPaths.entries()) {
      if (!(await check(segment))) throw new C2paError(`signed fragment ${i + 1} does not verify against its init segment`);
    }
  };
}

/** Step 4's claim thumbnail: ffmpeg reads a frame from the init segment followed by the first media segment. */
async function thumbnailSample(input: RenditionSignInput): Promise<string | undefined> {
  const first = input.segments[0];
  const wanted = typeof input.manifest === 'function' ? input.manifest(false).thumbnail : input.manifest.thumbnail;
  if (!first || !wanted || input.thumbnail) return undefined;
  const sample = path.join(input.outputDir, 'thumbnail-sample.mp4');
  const handle = await open(sample, 'wx', 0o600);
  try {
    for (const part of [input.init, first]) {
      await pipeline(createReadStream(part.path), handle.createWriteStream({ autoClose: false }), { end: false });
    }
  } finally {
    await handle.close();
  }
  return sample;
}

/** Signs the rendition into `input.outputDir`; on failure nothing signed is left there. */
export async function signRendition(input: RenditionSignInput, mimeType: SignableMimeType): Promise<SignedRendition> {
  // 1. check
  await checkRendition(input.init, input.segments);
  const count = input.segments.length;
  const written: string[] = [];
  let sample: string | undefined;
  try {
    // 2. segments
    const segments: WrittenSegment[] = [];
    for (const [i, segment] of input.segments.entries()) {
      const outputPath = path.join(input.outputDir, `segment-${i + 1}`);
      written.push(outputPath);
      segments.push(await writeSegment(segment, i, count, outputPath));
    }
    // 3. tree
    const layers = merkleLayers(segments.map((s) => s.leaf), ALG);
    for (const [location, segment] of segments.entries()) {
      const proof = merkleProof(layers, location, MERKLE_MAX_PROOFS);
      await writeRoom(segment.path, segment.room, merkleBoxBytes({ ...TREE, location, hashes: proof.length ? proof : null }));
    }
    // The segments are final: their SHA-256s are computed on a thread of their own while the init segment is signed.
    const digests = sha256OfFiles(segments.map((s) => s.path));
    digests.catch(() => undefined);
    // 4. init, and 5. check
    const initPath = path.join(input.outputDir, 'init');
    written.push(initPath);
    sample = await thumbnailSample(input);
    const binding: BmffBinding = { assertion: merkleAssertion(count, layers[merkleRowIndex(count)]!), check: renditionCheck(segments.map((s) => s.path)) };
    const init = await signBmffFile({ ...input, sourcePath: input.init.path, outputPath: initPath }, mimeType, { binding, thumbnailPath: sample });
    const sha256s = await digests;
    const signedSegments: SignedSegment[] = [];
    for (const [i, segment] of segments.entries()) signedSegments.push({ path: segment.path, size: (await stat(segment.path)).size, sha256: sha256s[i]! });
    return { init: { ...init, path: initPath }, segments: signedSegments };
  } catch (err) {
    await Promise.all(written.map((p) => rm(p, { force: true })));
    throw err;
  } finally {
    if (sample) await rm(sample, { force: true });
  }
}
