/**
 * bench/formats/memory: the peak memory (VmHWM, the resident set's high-water mark) of one sign job on a large file,
 * each in a fresh process as a sign sandbox is, by way of signing:
 *
 * - file:     the worker's path now (workers/sign-job.ts without the database): FileStore.readToFile to a temp file,
 *             signFile (c2pa-rs reads the source through a FileBlob; the signed file is written to a temp file and
 *             hashed; MP4, MOV and M4A are signed streamed instead, shared/c2pa/bmff-sign.ts, and
 *             bench/formats/large.ts measures them up to 4 GiB), FileStore.putFile streams it into the store.
 * - buffered: the worker's path before: FileStore.read (the whole upload in memory), signAssetWithManifest from
 *             memory (MP4, MOV, M4A: streamed through temp files), FileStore.write, SHA-256.
 * - wasm:     c2pa-rs alone on a FileBlob, without signFile's size guard: what c2pa-wasm itself does with the file.
 * - verify:   reading the signed file back as the API does for a file over MAX_UPLOAD_BYTES (readAssetFile in a
 *             process of its own, api/media/verify-process.ts), trusting the signing chain's root. The signed file is
 *             made first by another child (mode sign-to), so the figure is the read's alone.
 *
 * Each child reports its peak RSS, c2pa-wasm's WASM memory (WebAssembly.Memory size: it only grows), the JS heap
 * and the JS ArrayBuffers (the signed file c2pa-wasm hands back is one). A WASM trap (c2pa-wasm out of its 4 GiB of
 * address space: `unreachable`) is caught as the uncaught exception it is and reported with the same figures.
 * Files are made with ffmpeg (bench/formats/media.ts) and removed at the end.
 *
 *   npx tsx bench/formats/memory.ts [format:MiB ...]     default: mp4:1024 wav:200 mp4:256
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { hasManifest, readAssetFile } from '../../shared/c2pa/read-asset.js';
import { MAX_WASM_SIGN_BYTES, signAssetWithManifest, signFile } from '../../shared/c2pa/sign-asset.js';
import { c2paWasm, c2paWasmMemoryBytes, FileBlob } from '../../shared/c2pa/wasm.js';
import { LocalFileStore } from '../../shared/storage/index.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { makeSample, MIME, type BenchFormat } from './media.js';

const MiB = 2 ** 20;
const SELF = fileURLToPath(import.meta.url);
type Mode = 'file' | 'buffered' | 'wasm' | 'sign-to' | 'verify';

interface Report {
  mode: Mode;
  size: number;
  outcome: string;
  ms: number;
  /** VmHWM after start-up and loading the WASM, before the job. */
  baseMiB: number;
  peakMiB: number;
  wasmMiB: number;
  heapMiB: number;
  arrayBuffersMiB: number;
}

const status = (field: 'VmHWM' | 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

/** In the child: one job on `file`, then a JSON line on stdout. */
async function child(mode: Mode, file: string, mimeType: SignableMimeType): Promise<void> {
  const chain = await makeOpensslChain();
  c2paWasm();
  const baseMiB = status('VmHWM');
  const started = performance.now();
  const report = (outcome: string) => {
    const m = process.memoryUsage();
    const r: Report = {
      mode,
      size: Number(process.env.BENCH_SIZE),
      outcome,
      ms: Math.round(performance.now() - started),
      baseMiB,
      peakMiB: status('VmHWM'),
      wasmMiB: c2paWasmMemoryBytes() / MiB,
      heapMiB: m.heapUsed / MiB,
      arrayBuffersMiB: m.arrayBuffers / MiB,
    };
    process.stdout.write(`${JSON.stringify(r)}\n`);
  };
  // A WASM trap surfaces as an uncaught exception (from c2pa-wasm's future), not as a rejection.
  process.on('uncaughtException', (err) => {
    report(`failed: ${String(err).split('\n')[0]}`);
    process.exit(0);
  });

  const data = await mkdtemp(path.join(path.dirname(file), 'data-'));
  const store = new LocalFileStore(data);
  await store.ensureReady();
  await store.putFile('uploads/bench/source.bin', file);
  const key = { key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] };
  const manifest = (sourceHasManifest: boolean) => buildManifestDefinition({ title: 'Bench', creator: 'Bench' }, { sourceHasManifest });
  try {
    if (mode === 'sign-to') {
      // Not measured: the signed file and its root for mode verify, beside the source.
      await signFile({ sourcePath: file, outputPath: `${file}.signed`, mimeType, manifest, ...key });
      writeFileSync(`${file}.signed.root.pem`, chain.pem.root);
    } else if (mode === 'verify') {
      const read = await readAssetFile(file, mimeType, { trustAnchorsPem: readFileSync(`${file}.root.pem`, 'utf8') });
      report(`read: ${read.validation_state}`);
      return;
    } else if (mode === 'file') {
      const work = await mkdtemp(path.join(data, 'sign-'));
      try {
        await store.readToFile('uploads/bench/source.bin', path.join(work, 'source'));
        await signFile({ sourcePath: path.join(work, 'source'), outputPath: path.join(work, 'signed'), mimeType, manifest, ...key });
        await store.putFile('signed/bench/out.bin', path.join(work, 'signed'));
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    } else if (mode === 'buffered') {
      const bytes = await store.read('uploads/bench/source.bin');
      const { asset } = await signAssetWithManifest({ bytes, mimeType, manifest: manifest(await hasManifest(bytes, mimeType)), ...key });
      await store.write('signed/bench/out.bin', asset);
      createHash('sha256').update(asset).digest('hex');
    } else {
      const { WasmBuilder } = c2paWasm();
      const builder = WasmBuilder.fromJson(JSON.stringify({ ...manifest(false), format: mimeType }));
      using source = FileBlob.open(file, mimeType);
      await builder.signAndGetManifestBytes(coseSigner(key), [], mimeType, source);
      builder.free();
    }
    report('signed');
  } catch (err) {
    report(`refused: ${(err as Error).name}`);
  } finally {
    await rm(data, { recursive: true, force: true });
  }
}

function runChild(mode: Mode, file: string, mimeType: string, size: number): Promise<Report> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', SELF, 'child', mode, file, mimeType], { env: { ...process.env, BENCH_SIZE: String(size) }, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (!line) return reject(new Error(`child ${mode} ${file} said nothing: ${err?.message ?? ''} ${stderr}`));
      resolve(JSON.parse(line) as Report);
    });
  });
}

if (process.argv[2] === 'child') {
  await child(process.argv[3] as Mode, process.argv[4]!, process.argv[5] as SignableMimeType);
} else {
  const specs = (process.argv.length > 2 ? process.argv.slice(2) : ['mp4:1024', 'wav:200', 'mp4:256']).map((spec) => {
    const [format, mib] = spec.split(':');
    return { format: format as BenchFormat, bytes: Number(mib) * MiB };
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-memory-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const f = (n: number, digits = 0) => n.toFixed(digits).padStart(6);
  try {
    console.log('peak memory of one sign job (and of reading the signed file back) in a fresh process (VmHWM); x = peak / file size');
    for (const spec of specs) {
      const sample = await makeSample(dir, spec.format, spec.bytes);
      console.log(`${sample.label} (${sample.size} bytes, ${MIME[spec.format]})`);
      const line = (r: Report) =>
        console.log(
          `  ${r.mode.padEnd(9)} ${r.outcome.slice(0, 44).padEnd(44)} peak ${f(r.peakMiB)} MiB (x${(r.peakMiB / (r.size / MiB)).toFixed(2)})  ` +
            `start ${f(r.baseMiB)} MiB  WASM memory ${f(r.wasmMiB)} MiB  JS heap ${f(r.heapMiB, 1)} MiB  ArrayBuffers ${f(r.arrayBuffersMiB)} MiB  ${f(r.ms)} ms`,
        );
      for (const mode of ['buffered', 'file', 'wasm'] as const) line(await runChild(mode, sample.path, sample.mimeType, sample.size));
      // Reading it back, when it can be signed at all.
      if (sample.size <= MAX_WASM_SIGN_BYTES) {
        await runChild('sign-to', sample.path, sample.mimeType, sample.size);
        line(await runChild('verify', `${sample.path}.signed`, sample.mimeType, sample.size));
      }
      for (const suffix of ['', '.signed', '.signed.root.pem']) rmSync(`${sample.path}${suffix}`, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
