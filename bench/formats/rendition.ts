/**
 * bench/formats/rendition: signing fragmented MP4 renditions (DASH: an init segment and 2 s segments, cut by ffmpeg
 * without re-encoding from the 1080p samples bench/formats/large.ts signs) through signRendition as the worker calls
 * it, each in a fresh process as a sign sandbox is, against `sha256sum` reading every part in the same run. Prints per
 * size: segments, seconds and MB/s of signing (every segment written with its merkle box and hashed, the tree, the
 * init segment signed streamed, then every segment checked against the manifest and hashed for its SHA-256), the
 * process's peak RSS (VmHWM), and the ratio of its MB/s to sha256sum's.
 *
 * Goals: the peak flat across sizes (as for one MP4, under 512 MiB); the ratio 0.3 or more (signing reads the parts
 * three times: to write them, to check them, to hash them).
 *
 *   npx tsx bench/formats/rendition.ts [MiB ...]      default: 256 1024 (quick: 256)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { signRendition } from '../../shared/c2pa/bmff-rendition-sign.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { runSignChild, vmHwmMiB, type SignReport } from '../support/sign-child.js';
import { makeSample } from './media.js';

const run = promisify(execFile);
const MiB = 2 ** 20;
const SELF = fileURLToPath(import.meta.url);

/** The rendition's parts in `dir`: the init segment, then the segments in order. */
function partsOf(dir: string): { init: string; segments: string[] } {
  const segments = readdirSync(dir).filter((f) => f.startsWith('chunk-')).sort();
  return { init: path.join(dir, 'init-0.m4s'), segments: segments.map((f) => path.join(dir, f)) };
}

/** In the child: one rendition signed, then a JSON line on stdout. */
async function child(dir: string): Promise<void> {
  const chain = await makeOpensslChain({ cn: 'Rendition Bench' });
  c2paWasm();
  const baseMiB = vmHwmMiB();
  const parts = partsOf(dir);
  const outputDir = mkdtempSync(path.join(dir, 'signed-'));
  const started = performance.now();
  let outcome = 'signed';
  try {
    await signRendition(
      {
        init: { path: parts.init, name: 'init-0.m4s' },
        segments: parts.segments.map((p) => ({ path: p, name: path.basename(p) })),
        outputDir,
        mimeType: 'video/mp4',
        manifest: (has) => buildManifestDefinition({ title: 'Evening news', creator: 'Broadcast Desk', thumbnail: true }, { sourceHasManifest: has }),
        key: chain.keys.leaf,
        chainDer: [chain.der.leaf, chain.der.subCa],
        ffmpegPath: 'ffmpeg',
        onThumbnailError: (err) => {
          outcome = `signed without a thumbnail (${String(err)})`;
        },
      },
      'video/mp4',
    );
  } catch (err) {
    outcome = `failed: ${String(err).split('\n')[0]}`;
  }
  const report: SignReport = { outcome, seconds: (performance.now() - started) / 1000, baseMiB, peakMiB: vmHwmMiB() };
  rmSync(outputDir, { recursive: true, force: true });
  rmSync(chain.dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

async function sha256sumSeconds(files: string[]): Promise<number> {
  const started = performance.now();
  await run('sha256sum', files, { maxBuffer: 64 << 20 });
  return (performance.now() - started) / 1000;
}

if (process.argv[2] === 'child') {
  await child(process.argv[3]!);
} else {
  const args = process.argv.slice(2);
  const sizes = (args[0] === 'quick' ? [256] : args.length ? args.map(Number) : [256, 1024]).map((mib) => mib * MiB);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-rendition-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const mbps = (bytes: number, seconds: number) => bytes / seconds / 1e6;
  console.log('signRendition (fresh process) vs sha256sum over the same parts; peak = VmHWM of the sign process');
  console.log('  size        segments   sign s    sign MB/s   sha256sum MB/s   ratio   peak RSS (start)    outcome');
  try {
    for (const bytes of sizes) {
      const sample = await makeSample(dir, 'mp4', bytes);
      const dash = path.join(dir, `dash-${bytes}`);
      mkdirSync(dash);
      await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', sample.path, '-map', '0:v', '-c', 'copy', '-f', 'dash', '-seg_duration', '2', '-use_template', '1', '-use_timeline', '0', '-init_seg_name', 'init-$RepresentationID$.m4s', '-media_seg_name', 'chunk-$RepresentationID$-$Number%05d$.m4s', 'stream.mpd'], { cwd: dash });
      rmSync(sample.path, { force: true });
      const parts = partsOf(dash);
      const files = [parts.init, ...parts.segments];
      const total = files.reduce((n, f) => n + statSync(f).size, 0);
      await sha256sumSeconds(files);
      const shaSeconds = await sha256sumSeconds(files);
      const job = await runSignChild(SELF, dash);
      const ratio = mbps(total, job.seconds) / mbps(total, shaSeconds);
      console.log(
        `  ${`${(total / MiB).toFixed(0)} MiB`.padEnd(10)} ${String(parts.segments.length).padStart(8)}  ${job.seconds.toFixed(2).padStart(7)}  ${mbps(total, job.seconds).toFixed(0).padStart(9)}  ${mbps(total, shaSeconds).toFixed(0).padStart(14)}  ${ratio.toFixed(2).padStart(6)}   ${job.peakMiB.toFixed(0).padStart(5)} MiB (${job.baseMiB.toFixed(0)} MiB)   ${job.outcome}`,
      );
      rmSync(dash, { recursive: true, force: true });
    }
    console.log('goals: peak flat and < 512 MiB; ratio >= 0.3. The machine may be shared: figures are noisy.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
