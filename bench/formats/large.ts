/**
 * bench/formats/large: signing MP4s of 64 MiB to 4 GiB through the worker's path, each in a fresh process as a sign
 * sandbox is, against `sha256sum` reading the same file in the same run. Prints per size: seconds and MB/s of the
 * sign job, its process's peak RSS (VmHWM, worker thread included; ffmpeg, which takes the thumbnail's frame, is a
 * process of its own), and the ratio of its MB/s to sha256sum's; then the same job again in the same process, as a
 * sandbox's later jobs run (c2pa-rs's first signing and validation in a process cost more than its later ones).
 *
 * Goals: the peak flat across sizes and under 512 MiB at 4 GiB; the ratio 0.5 or more. The worker's path, minus the
 * database (as bench/formats/run.ts): the upload copied out of a local file store (FileStore.readToFile: a hard
 * link), signFile as signMedia calls it (a definition built once the source was looked at, a claim thumbnail from an
 * ffmpeg frame, the playing time; no timestamp), which signs streamed (shared/c2pa/bmff-sign.ts: one pass that writes
 * and hashes, the signed file checked by reading its manifest back and hashing it again while its SHA-256 is computed
 * on a thread of its own), then the signed file into the store (putFile). Files are made with ffmpeg
 * (bench/formats/media.ts: a 10 s 1080p piece repeated without re-encoding) and removed after each size.
 *
 * With `wav`, WAVs (pink noise, 24-bit stereo) instead, signed streamed with a data hash (shared/c2pa/data-hash-sign.ts:
 * one pass that writes and hashes, the manifest chunk appended, the signed file checked the same way); no thumbnail.
 *
 *   npx tsx bench/formats/large.ts [MiB ...]      default: 64 512 2048 4096 (quick: 64 512)
 *   npx tsx bench/formats/large.ts wav [MiB ...]  default: 64 512
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { warmUpSigning } from '../../shared/c2pa/warm-up.js';
import { loadSharp } from '../../shared/media/sharp.js';
import { isoDuration, mediaDurationSeconds } from '../../shared/media/duration.js';
import { identifyMedia } from '../../shared/media/formats.js';
import { LocalFileStore } from '../../shared/storage/index.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { runSignChild, vmHwmMiB, type SignReport } from '../support/sign-child.js';
import { makeSample } from './media.js';

const run = promisify(execFile);
const MiB = 2 ** 20;
const SELF = fileURLToPath(import.meta.url);

/** In the child: one sign job on `file`, the same job again, then a JSON line on stdout. */
async function child(file: string): Promise<void> {
  const chain = await makeOpensslChain({ cn: 'Large Bench' });
  const { mimeType } = await identifyMedia(file, { checkStructure: false });
  // As a sign sandbox before its first job (workers/sign-sandbox.ts): the C2PA WASM compiled, sharp loaded, one small
  // MP4 signed and checked.
  c2paWasm();
  await loadSharp();
  await warmUpSigning();
  const baseMiB = vmHwmMiB();
  const data = await mkdtemp(path.join(path.dirname(file), 'data-'));
  const store = new LocalFileStore(data);
  await store.ensureReady();
  await store.putFile('uploads/bench/source', file);
  let outcome = 'signed';
  const job = async (): Promise<number> => {
    const started = performance.now();
    const work = await mkdtemp(path.join(data, 'sign-'));
    try {
      const sourcePath = path.join(work, 'source');
      await store.readToFile('uploads/bench/source', sourcePath);
      const seconds = await mediaDurationSeconds(sourcePath, mimeType);
      const medium = { duration: seconds === undefined ? undefined : isoDuration(seconds) };
      await signFile({
        sourcePath,
        outputPath: path.join(work, 'signed'),
        mimeType: mimeType as SignableMimeType,
        manifest: (sourceHasManifest) => buildManifestDefinition({ title: 'Rushes', creator: 'Video Desk', thumbnail: mimeType.startsWith('video/') }, { sourceHasManifest, medium }),
        key: chain.keys.leaf,
        chainDer: [chain.der.leaf, chain.der.subCa],
        ffmpegPath: 'ffmpeg',
        onThumbnailError: (err) => {
          outcome = `signed without a thumbnail (${String(err)})`;
        },
      });
      await store.putFile('signed/bench/signed', path.join(work, 'signed'));
    } catch (err) {
      outcome = `failed: ${String(err).split('\n')[0]}`;
    }
    const seconds = (performance.now() - started) / 1000;
    // Timed without it: the job ends with the signed file in the store.
    await rm(work, { recursive: true, force: true });
    return seconds;
  };
  const seconds = await job();
  const laterSeconds = await job();
  const report: SignReport = { outcome, seconds, laterSeconds, baseMiB, peakMiB: vmHwmMiB() };
  await rm(data, { recursive: true, force: true });
  rmSync(chain.dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** sha256sum's wall time on the file (read from the page cache, as the sign job's source is). */
async function sha256sumSeconds(file: string): Promise<number> {
  const started = performance.now();
  await run('sha256sum', [file]);
  return (performance.now() - started) / 1000;
}

if (process.argv[2] === 'child') {
  await child(process.argv[3]!);
} else {
  const wav = process.argv[2] === 'wav';
  const args = process.argv.slice(wav ? 3 : 2);
  const sizes = (args[0] === 'quick' || (wav && !args.length) ? [64, 512] : args.length ? args.map(Number) : [64, 512, 2048, 4096]).map((mib) => mib * MiB);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-large-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const mbps = (bytes: number, seconds: number) => bytes / seconds / 1e6;
  console.log(`sign job (worker path, fresh process: a sandbox's first job) vs sha256sum on the same ${wav ? 'WAV' : 'MP4'}; peak = VmHWM of the sign process`);
  console.log(`then the same job again in that process (a sandbox's later jobs: "later")`);
  console.log('  size        sign s    sign MB/s   sha256sum MB/s   ratio   later s  ratio   peak RSS (start)    outcome');
  try {
    for (const bytes of sizes) {
      const sample = await makeSample(dir, wav ? 'wav' : 'mp4', bytes);
      // Once to bring the file into the page cache as the sign job finds it, then timed.
      await sha256sumSeconds(sample.path);
      const shaSeconds = await sha256sumSeconds(sample.path);
      const job = await runSignChild(SELF, sample.path);
      const ratio = (seconds: number) => shaSeconds / seconds;
      const later = job.laterSeconds ?? Number.NaN;
      console.log(
        `  ${sample.label.padEnd(10)} ${job.seconds.toFixed(2).padStart(7)}  ${mbps(sample.size, job.seconds).toFixed(0).padStart(9)}  ${mbps(sample.size, shaSeconds).toFixed(0).padStart(14)}  ${ratio(job.seconds).toFixed(2).padStart(6)}  ${later.toFixed(2).padStart(7)}  ${ratio(later).toFixed(2).padStart(5)}   ${job.peakMiB.toFixed(0).padStart(5)} MiB (${job.baseMiB.toFixed(0)} MiB)   ${job.outcome}`,
      );
      rmSync(sample.path, { force: true });
    }
    console.log('goals: peak flat and < 512 MiB at 4 GiB; ratio >= 0.5. The machine may be shared: figures are noisy.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
