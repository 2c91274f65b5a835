/**
 * bench/formats: signing speed by format and size, through the worker's file-backed signing path against the raw
 * c2pa-rs loop measured in the same run. Prints MB/s for both and the ratio (goal: >= 0.8).
 *
 * - worker path: what workers/sign-job.ts does with a file, minus the database: the upload is copied out of the file
 *   store to a temp file (FileStore.readToFile), signed from a FileBlob (signFile: type check, a look for an existing
 *   manifest, c2pa-rs, the signed file written and hashed; MP4, MOV and M4A signed streamed instead, with the signed
 *   file checked, shared/c2pa/bmff-sign.ts), streamed into the store (putFile), temp files removed. The store is a local directory (DATA_DIR/files) on the same disk, as on a single host.
 * - raw loop: c2pa-rs alone: WasmBuilder.sign on the bytes in memory (BytesBlob), nothing else.
 * - floor: raw c2pa-rs plus the I/O any signer that stores and anchors its output must do, in the plainest code: the
 *   source read from disk (readFileSync), the signed file written to disk (writeFileSync) and its SHA-256 computed.
 *   Its ratio to raw is the most a worker that keeps files can reach; the worker path's ratio to it is what the
 *   worker's own code (type check, manifest look-up, temp directory, store) costs beyond that.
 *
 * Same manifest, same key, no timestamp on either side (SIGN_WITHOUT_TIMESTAMP-like); the two sides alternate, their
 * order swapped every round, and medians are compared (the machine is shared; a GC or a neighbour's burst lands in
 * one iteration, not in a side's total). Files are
 * made by sharp and ffmpeg in the run (bench/formats/media.ts) and removed at the end.
 *
 *   npx tsx bench/formats/run.ts [quick]      (quick: the smaller sizes only)
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { LocalFileStore } from '../../shared/storage/index.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { makeSample, readSample, type BenchFormat, type Sample } from './media.js';

const MiB = 2 ** 20;
const quick = process.argv[2] === 'quick';

/** Sizes per format (bytes); images by what their pixel count gives. */
const PLAN: [BenchFormat, number[]][] = [
  ['jpeg', [1.3 * MiB, 5.3 * MiB]],
  ['png', [3 * MiB, 12 * MiB]],
  ['webp', [5.3 * MiB]],
  ['tiff', [9 * MiB, 36 * MiB]],
  ['mp4', quick ? [16 * MiB] : [16 * MiB, 64 * MiB, 256 * MiB]],
  ['mov', quick ? [16 * MiB] : [16 * MiB, 64 * MiB]],
  ['m4a', [4 * MiB, 32 * MiB]],
  ['mp3', [4 * MiB, 32 * MiB]],
  ['wav', quick ? [16 * MiB] : [16 * MiB, 64 * MiB, 200 * MiB]],
];

/** Rounds (one of each side per round): about 192 MiB signed per side, at least 3, at most 21. */
const roundsFor = (size: number) => Math.max(3, Math.min(21, Math.round((192 * MiB) / size)));

const work = mkdtempSync(path.join(tmpdir(), 'bench-formats-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));
try {
  const chain = await makeOpensslChain();
  const { WasmBuilder } = c2paWasm();
  const signer = coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
  const manifest = buildManifestDefinition({ title: 'Bench', creator: 'Bench' }, { sourceHasManifest: false });
  const store = new LocalFileStore(path.join(work, 'data'));
  await store.ensureReady();
  const jobsDir = path.join(work, 'data', 'signing');
  await mkdir(jobsDir, { recursive: true });

  /** c2pa-rs alone, on the bytes in memory. */
  const raw = async (sample: Sample, bytes: Uint8Array) => {
    const builder = WasmBuilder.fromJson(JSON.stringify({ ...manifest, format: sample.mimeType }));
    try {
      await builder.sign(signer, [], sample.mimeType, new BytesBlob(bytes, sample.mimeType));
    } finally {
      builder.free();
    }
  };

  /** The worker's path for one job's file (sign-job.ts without the database). */
  let job = 0;
  const pipeline = async (sample: Sample, uploadKey: string) => {
    job += 1;
    const dir = await mkdtemp(path.join(jobsDir, 'sign-bench-'));
    try {
      const source = path.join(dir, 'source');
      const signed = path.join(dir, 'signed');
      await store.readToFile(uploadKey, source);
      const definition = (sourceHasManifest: boolean) => buildManifestDefinition({ title: 'Bench', creator: 'Bench' }, { sourceHasManifest });
      await signFile({ sourcePath: source, outputPath: signed, mimeType: sample.mimeType, manifest: definition, key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
      const key = `signed/bench/${job}.bin`;
      await store.putFile(key, signed);
      await store.remove(key);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  /** Raw c2pa-rs with the unavoidable I/O: the source read from disk, the signed file written to disk and hashed. */
  const floorOut = path.join(work, 'floor-signed');
  const floor = async (sample: Sample) => {
    const source = readFileSync(sample.path);
    const builder = WasmBuilder.fromJson(JSON.stringify({ ...manifest, format: sample.mimeType }));
    try {
      const asset = await builder.sign(signer, [], sample.mimeType, new BytesBlob(source, sample.mimeType));
      writeFileSync(floorOut, asset);
      createHash('sha256').update(asset).digest('hex');
    } finally {
      builder.free();
    }
  };

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const timed = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };

  const rows: { label: string; size: number; raw: number; pipe: number; floor: number }[] = [];
  console.log(`signing speed by format: worker's file-backed path vs raw c2pa-rs (builder.sign on bytes in memory) and the floor (raw + read, write, SHA-256), no timestamp; medians`);
  for (const [format, sizes] of PLAN) {
    for (const target of sizes) {
      const sample = await makeSample(work, format, Math.round(target));
      const bytes = new Uint8Array(await readSample(sample));
      const uploadKey = `uploads/bench/${path.basename(sample.path).replace(/[^a-z0-9.-]/g, '-')}`;
      await store.putFile(uploadKey, sample.path);
      const rounds = roundsFor(sample.size);
      // Warm-up: one of each (the first sign of a format compiles and grows memory).
      await raw(sample, bytes);
      await pipeline(sample, uploadKey);
      await floor(sample);
      // Alternating, the order reversed every round (ABC CBA ...): drift in the machine's load hits every side alike.
      const rawMs: number[] = [];
      const pipeMs: number[] = [];
      const floorMs: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const sides = [
          async () => void rawMs.push(await timed(() => raw(sample, bytes))),
          async () => void pipeMs.push(await timed(() => pipeline(sample, uploadKey))),
          async () => void floorMs.push(await timed(() => floor(sample))),
        ];
        for (const side of round % 2 ? sides.reverse() : sides) await side();
      }
      const mb = sample.size / 1e6;
      const rate = (ms: number[]) => mb / (median(ms) / 1000);
      const row = { label: sample.label, size: sample.size, raw: rate(rawMs), pipe: rate(pipeMs), floor: rate(floorMs) };
      rows.push(row);
      console.log(
        `  ${row.label.padEnd(14)} raw ${row.raw.toFixed(1).padStart(6)} MB/s (${(median(rawMs) / mb).toFixed(1).padStart(4)} ms/MB)   ` +
          `worker path ${row.pipe.toFixed(1).padStart(6)} MB/s (${(median(pipeMs) / mb).toFixed(1).padStart(4)} ms/MB)   ratio ${(row.pipe / row.raw).toFixed(2)}   ` +
          `floor ${row.floor.toFixed(1).padStart(6)} MB/s (${(row.floor / row.raw).toFixed(2)} of raw; worker path ${(row.pipe / row.floor).toFixed(2)} of it)   x${rounds}`,
      );
      await store.remove(uploadKey);
      await rm(sample.path, { force: true });
    }
  }
  const worst = rows.reduce((a, b) => (b.pipe / b.raw < a.pipe / a.raw ? b : a));
  const total = (k: 'raw' | 'pipe' | 'floor') => rows.reduce((sum, r) => sum + r.size / 1e6, 0) / rows.reduce((sum, r) => sum + r.size / 1e6 / r[k], 0);
  console.log(`all files (one of each, by median time): raw ${total('raw').toFixed(1)} MB/s, worker path ${total('pipe').toFixed(1)} MB/s, ratio ${(total('pipe') / total('raw')).toFixed(2)}   (goal >= 0.80)`);
  console.log(`  floor (raw + read, write, SHA-256): ${total('floor').toFixed(1)} MB/s, ${(total('floor') / total('raw')).toFixed(2)} of raw; the worker path is ${(total('pipe') / total('floor')).toFixed(2)} of the floor`);
  console.log(`lowest ratio: ${worst.label} ${(worst.pipe / worst.raw).toFixed(2)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
