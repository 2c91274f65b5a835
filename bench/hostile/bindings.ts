/**
 * bench/hostile/bindings: what the detached hard-binding checks cost on the hostile inputs of issue 29, against an
 * upper bound of 1 s each. The inputs are built in the run:
 *
 *   bmff 2,000 boxes        an MP4 (ffmpeg) followed by 2,000 eight-byte boxes, about 23 KB
 *   bmff 100,000 boxes      the same with 100,000 boxes, about 808 KB
 *   bmff 600,000 x 4 B      the same with 600,000 four-byte boxes, about 2.4 MB
 *   bmff 20,000 /free       2,000 free boxes, the sidecar listing 20,000 /free exclusions
 *   data 200,000 ranges     a 50 MB file (the public route's limit), c2pa.hash.data with 200,000 exclusions
 *   boxes 100,000 entries   a PNG with 100,000 more chunks, c2pa.hash.boxes naming each
 *
 * and the worst inputs the checks still judge, at their limits (shared/c2pa/binding-limits.ts):
 *
 *   bmff at the box limit   10,000 boxes in all (MAX_BMFF_BOXES)
 *   bmff 1,000 x 1,000      1,000 exclusions (995 of them /free) against 1,000 free boxes: 996,001 box checks
 *   data 10,000 ranges      the 50 MB file with 10,000 exclusions
 *   boxes at the limit      the PNG with 99,990 more chunks: 100,000 entries
 *
 * Every input comes with a legitimate assertion: the BMFF ones take c2pa-rs's own c2pa.hash.bmff.v3 (its sidecar for
 * the 2,000-box file: exclusions /uuid, /ftyp, /mfra, /free, /skip) with the digest of each file computed here by a
 * plain walk of its top-level boxes (checked against c2pa-rs's digest on the 2,000-box file); the data and box hashes
 * are computed here the same way. So a check that finishes says "match".
 *
 * Each input is checked in a process of its own (bmffHashMatches, dataHashMatches, boxHashMatches of the checkout),
 * killed after BENCH_TIMEOUT_S (60) s, its heap capped at 2 GiB; the bench prints seconds, the ratio to the bound,
 * the verdict (a check stopped at a limit: "Invalid: <the limit>", as the verdict explains it) and the process's peak
 * RSS (VmHWM, read while it runs). The peer, in the same run: c2pa-rs (the WASM
 * build) reading an MP4 it signed with its manifest embedded, followed by 2,000, 10,000 and 20,000 boxes: the cost of
 * the same walk in the library the checks are ported from.
 *
 *   npx tsx bench/hostile/bindings.ts [checkout=.]      e.g. a checkout of an earlier commit, for before/after
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';

const BOUND_S = 1;
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 60);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

type Check = 'bmff' | 'data' | 'boxes' | 'c2pa-rs';

interface Input {
  name: string;
  check: Check;
  file: string;
  /** The assertion (JSON) given to the check; for c2pa-rs, none. */
  assertion?: string;
}

/** What a child process reports. */
interface Outcome {
  seconds: number;
  verdict: string;
  rssMiB: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Building the inputs

/** `count` boxes of `size` bytes (8: an empty box of `type`; 4: a size field alone, the next box's size its type). */
function boxSoup(count: number, size: 4 | 8, type = 'junk'): Buffer {
  const soup = Buffer.alloc(count * size);
  for (let i = 0; i < count; i += 1) {
    soup.writeUInt32BE(size, i * size);
    if (size === 8) soup.write(type, i * size + 4, 'latin1');
  }
  return soup;
}

/** An empty free box: ends a four-byte soup with a box whose header is whole. */
const FREE = Buffer.from('0000000866726565', 'hex');
const C2PA_UUID = Buffer.from('d8fec3d61b0e483c92975828877ec481', 'hex');

/** The top-level boxes as a plain reader sees them: offset, size (0: to the end) and type. */
function topLevel(file: Buffer): { at: number; size: number; type: string }[] {
  const out: { at: number; size: number; type: string }[] = [];
  for (let at = 0; at + 8 <= file.length; ) {
    let size = file.readUInt32BE(at);
    if (size === 1) size = Number(file.readBigUInt64BE(at + 8));
    if (size === 0) size = file.length - at;
    out.push({ at, size, type: file.toString('latin1', at + 4, at + 8) });
    at += size;
  }
  return out;
}

/** All the boxes of a plain MP4 (ftyp, free, mdat and moov with its track containers), as c2pa-rs's walk counts them. */
function countBoxes(file: Buffer, from = 0, to = file.length): number {
  let n = 0;
  for (let at = from; at + 8 <= to; ) {
    const size = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    n += 1;
    if (['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'udta', 'dinf'].includes(type)) n += countBoxes(file, at + 8, at + size);
    if (type === 'meta') n += countBoxes(file, at + 12, at + size);
    at += size;
  }
  return n;
}

/**
 * The c2pa.hash.bmff.v3 digest of a file whose exclusions are c2pa-rs's defaults, each excluding whole top-level
 * boxes: every other top-level box hashed as its 8-byte offset, then its bytes.
 */
function bmffV3Digest(file: Buffer): string {
  const hash = createHash('sha256');
  for (const box of topLevel(file)) {
    const c2pa = box.type === 'uuid' && file.subarray(box.at + 8, box.at + 24).equals(C2PA_UUID);
    if (c2pa || ['ftyp', 'free', 'skip', 'mfra'].includes(box.type)) continue;
    const offset = Buffer.alloc(8);
    offset.writeBigUInt64BE(BigInt(box.at));
    hash.update(offset).update(file.subarray(box.at, box.at + box.size));
  }
  return `b64'${hash.digest('base64')}'`;
}

async function ffmpegMp4(dir: string): Promise<Buffer> {
  const out = path.join(dir, 'base.mp4');
  await new Promise<void>((resolve, reject) => {
    const args = ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=0.3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', out];
    spawn('ffmpeg', args, { stdio: 'inherit' }).once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
  });
  return readFileSync(out);
}

/** c2pa-rs's sidecar assertion for `file` (c2pa.hash.bmff.v3, from the crJSON of its no_embed store), and an embedded copy. */
async function c2paRsSigned(file: Buffer): Promise<{ assertion: { hash: string } & Record<string, unknown>; embedded: Buffer; cleanup: () => void }> {
  const [{ coseSigner }, { buildManifestDefinition }, { BytesBlob, c2paWasm }, { makeOpensslChain }] = await Promise.all([
    import('../../shared/c2pa/cose-sign1.js'),
    import('../../shared/c2pa/manifest-definition.js'),
    import('../../shared/c2pa/wasm.js'),
    import('../../test/support/openssl-chain.js'),
  ]);
  const chain = await makeOpensslChain({ cn: 'Hostile Bench' });
  const signer = () => coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
  const { thumbnail: _none, ...definition } = buildManifestDefinition({ title: 'soup.mp4', creator: 'Bench' }, { sourceHasManifest: false });
  const builder = (noEmbed: boolean) => {
    const b = c2paWasm().WasmBuilder.fromJson(JSON.stringify({ ...definition, format: 'video/mp4' }), JSON.stringify({ verify: { verify_after_sign: false, remote_manifest_fetch: false } }));
    b.setNoEmbed(noEmbed);
    return b;
  };
  const blob = () => new BytesBlob(new Uint8Array(file), 'video/mp4');
  const sidecarBuilder = builder(true);
  const { manifest } = (await sidecarBuilder.signAndGetManifestBytes(signer(), [], 'video/mp4', blob())) as { manifest: Uint8Array };
  sidecarBuilder.free();
  const embeddedBuilder = builder(false);
  const embedded = Buffer.from(await embeddedBuilder.sign(signer(), [], 'video/mp4', blob()));
  embeddedBuilder.free();
  const reader = await c2paWasm().WasmReader.fromBytes('application/c2pa', manifest, JSON.stringify({ verify: { remote_manifest_fetch: false } }));
  const active = reader.activeLabel();
  const crJson = JSON.parse(reader.crJson()) as { manifests: { label: string; assertions: Record<string, unknown> }[] };
  reader.free();
  const assertions = crJson.manifests.find((m) => m.label === active)!.assertions;
  const assertion = assertions[Object.keys(assertions).find((k) => k.startsWith('c2pa.hash.bmff.v3'))!] as { hash: string } & Record<string, unknown>;
  return { assertion, embedded, cleanup: () => rmSync(chain.dir, { recursive: true, force: true }) };
}

/** A PNG chunk with its CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

async function buildInputs(dir: string): Promise<Input[]> {
  const write = (name: string, bytes: Buffer | string) => {
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    return file;
  };
  const base = await ffmpegMp4(dir);
  const soup2k = Buffer.concat([base, boxSoup(2_000, 8)]);
  const signed = await c2paRsSigned(soup2k);
  signed.cleanup();
  if (bmffV3Digest(soup2k) !== signed.assertion.hash) throw new Error('the plain BMFF digest differs from c2pa-rs\'s on the 2,000-box file: the inputs would not be legitimate');
  const bmff = (name: string, file: Buffer, exclusions?: unknown[]): Input => ({
    name,
    check: 'bmff',
    file: write(`${name.replace(/\W+/g, '-')}.mp4`, file),
    assertion: write(`${name.replace(/\W+/g, '-')}.json`, JSON.stringify({ ...signed.assertion, ...(exclusions ? { exclusions } : {}), hash: bmffV3Digest(file) })),
  });
  const free2k = Buffer.concat([base, boxSoup(2_000, 8, 'free')]);
  const defaults = signed.assertion.exclusions as { xpath: string }[];
  const freeExclusions = (count: number) => [...defaults, ...Array.from({ length: count - defaults.length }, () => ({ xpath: '/free' }))];
  const baseBoxes = countBoxes(base);
  const inputs: Input[] = [
    bmff('bmff 2,000 boxes', soup2k),
    bmff('bmff 100,000 boxes', Buffer.concat([base, boxSoup(100_000, 8)])),
    bmff('bmff 600,000 x 4 B', Buffer.concat([base, boxSoup(600_000, 4), FREE])),
    bmff('bmff 20,000 /free', free2k, freeExclusions(20_000)),
    bmff('bmff at the box limit', Buffer.concat([base, boxSoup(10_000 - baseBoxes, 8)])),
    bmff('bmff 1,000 x 1,000', Buffer.concat([base, boxSoup(1_000 - topLevel(base).filter((b) => b.type === 'free').length, 8, 'free')]), freeExclusions(1_000)),
  ];

  // c2pa.hash.data: 50 MB, 200,000 one-byte exclusions spread over it.
  const data = Buffer.alloc(50 * 1024 * 1024);
  for (let i = 0; i < data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
  const dataFile = write('data.bin', data);
  const dataInput = (name: string, count: number): Input => {
    const ranges = Array.from({ length: count }, (_, i) => ({ start: Math.floor((i * data.length) / count) + 7, length: 1 }));
    const kept = createHash('sha256');
    let from = 0;
    for (const { start, length } of ranges) {
      kept.update(data.subarray(from, start));
      from = start + length;
    }
    kept.update(data.subarray(from));
    return { name, check: 'data', file: dataFile, assertion: write(`data-${count}.json`, JSON.stringify({ alg: 'sha256', hash: `b64'${kept.digest('base64')}'`, exclusions: ranges })) };
  };
  inputs.push(dataInput('data 200,000 ranges', 200_000));

  // c2pa.hash.boxes: a PNG with more tEXt chunks before IEND, one entry per chunk (its bytes hashed).
  const png = readFileSync(path.join(ROOT, 'test/fixtures/graphic.png'));
  const iend = png.length - 12;
  const text = pngChunk('tEXt', Buffer.from('k\0v', 'latin1'));
  const boxesInput = (name: string, more: number): Input => {
    const soupPng = Buffer.concat([png.subarray(0, iend), ...Array.from({ length: more }, () => text), png.subarray(iend)]);
    const entries: { names: string[]; alg: string; hash: number[]; pad: number[] }[] = [];
    const entry = (chunk: string, bytes: Buffer) => entries.push({ names: [chunk], alg: 'sha256', hash: [...createHash('sha256').update(bytes).digest()], pad: [] });
    entry('PNGh', soupPng.subarray(0, 8));
    for (let at = 8; at < soupPng.length; ) {
      const end = at + 12 + soupPng.readUInt32BE(at);
      entry(soupPng.toString('latin1', at + 4, at + 8), soupPng.subarray(at, end));
      at = end;
    }
    return { name, check: 'boxes', file: write(`boxes-${more}.png`, soupPng), assertion: write(`boxes-${more}.json`, JSON.stringify({ boxes: entries })) };
  };
  inputs.push(boxesInput('boxes 100,000 entries', 100_000));
  inputs.push(dataInput('data 10,000 ranges', 10_000));
  inputs.push(boxesInput('boxes at the limit', 100_000 - 10));

  // The peer: c2pa-rs reading its own embedded manifest with boxes appended after it.
  for (const count of [2_000, 10_000, 20_000]) {
    inputs.push({ name: `c2pa-rs embedded + ${count.toLocaleString('en')} boxes`, check: 'c2pa-rs', file: write(`embedded-${count}.mp4`, Buffer.concat([signed.embedded, boxSoup(count, 8)])) });
  }
  return inputs;
}

// ---------------------------------------------------------------------------------------------------------------
// One input, in a process of its own

async function runOne(checkout: string, input: Input): Promise<void> {
  const from = (module: string) => import(pathToFileURL(path.join(checkout, module)).href);
  const assertion: unknown = input.assertion ? JSON.parse(readFileSync(input.assertion, 'utf8')) : undefined;
  let run: () => Promise<unknown>;
  if (input.check === 'bmff') {
    const { bmffHashMatches } = await from('shared/c2pa/bmff-hash.ts');
    run = () => bmffHashMatches(input.file, assertion, { version: 3 });
  } else if (input.check === 'data') {
    const { dataHashMatches } = await from('shared/c2pa/data-hash.ts');
    run = () => dataHashMatches(input.file, assertion);
  } else if (input.check === 'boxes') {
    const { boxHashMatches } = await from('shared/c2pa/box-hash.ts');
    run = () => boxHashMatches(input.file, assertion);
  } else {
    const { c2paWasm } = await from('shared/c2pa/wasm.ts');
    c2paWasm(); // compiled before the clock starts
    const bytes = new Uint8Array(readFileSync(input.file));
    run = async () => {
      const reader = await c2paWasm().WasmReader.fromBytes('video/mp4', bytes, JSON.stringify({ verify: { remote_manifest_fetch: false } }));
      try {
        const codes = (JSON.parse(reader.json()) as { validation_results?: { activeManifest?: { failure?: { code: string }[] } } }).validation_results?.activeManifest?.failure ?? [];
        return codes.some((c) => c.code === 'assertion.bmffHash.mismatch') ? false : 'no bmffHash.mismatch';
      } finally {
        reader.free();
      }
    };
  }
  const started = process.hrtime.bigint();
  let verdict: string;
  try {
    const result = await run();
    verdict = result === true ? 'match' : result === false ? 'mismatch' : String(result);
  } catch (err) {
    verdict = `${(err as Error).name === 'BindingLimitExceeded' ? 'Invalid' : 'threw'}: ${(err as Error).message.slice(0, 110)}`;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const outcome: Outcome = { seconds, verdict, rssMiB: Math.round(process.resourceUsage().maxRSS / 1024) };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

/** Peak RSS of a live process (VmHWM), in MiB; 0 once it is gone. */
function peakRssMiB(pid: number): number {
  try {
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
  } catch {
    return 0;
  }
}

function measure(checkout: string, input: Input): Promise<Outcome & { killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, '--max-old-space-size=2048', fileURLToPath(import.meta.url), '--one', checkout, JSON.stringify(input)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: checkout,
    });
    let out = '';
    let err = '';
    let peak = 0;
    let killed = false;
    const started = Date.now();
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const poll = setInterval(() => (peak = Math.max(peak, peakRssMiB(child.pid!))), 100);
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, TIMEOUT_S * 1000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const line = out.trim().split('\n').pop();
      if (line?.startsWith('{')) {
        const outcome = JSON.parse(line) as Outcome;
        resolve({ ...outcome, rssMiB: Math.max(outcome.rssMiB, peak), killed });
        return;
      }
      const seconds = (Date.now() - started) / 1000;
      const why = killed ? `killed after ${TIMEOUT_S} s` : /heap out of memory/i.test(err) ? 'ran out of its 2 GiB heap' : `exited ${code ?? signal}: ${err.trim().split('\n').pop()?.slice(0, 100) ?? ''}`;
      resolve({ seconds, verdict: why, rssMiB: peak, killed });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------

if (process.argv[2] === '--one') {
  await runOne(process.argv[3]!, JSON.parse(process.argv[4]!) as Input);
} else {
  const checkout = path.resolve(process.argv[2] ?? '.');
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-hostile-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const inputs = await buildInputs(dir);
  console.log(`checkout ${checkout}; bound ${BOUND_S} s per input; a process per input, killed after ${TIMEOUT_S} s\n`);
  console.log(`${'input'.padEnd(32)} ${'size'.padStart(10)} ${'seconds'.padStart(9)} ${'/ bound'.padStart(8)} ${'peak RSS'.padStart(9)}  verdict`);
  for (const input of inputs) {
    const { seconds, verdict, rssMiB, killed } = await measure(checkout, input);
    const size = `${(readFileSync(input.file).length / 1024).toFixed(0)} KB`;
    const shown = killed ? `>${seconds.toFixed(0)}` : seconds.toFixed(3);
    const ratio = `${killed ? '>' : ''}${(seconds / BOUND_S).toFixed(2)}`;
    console.log(`${input.name.padEnd(32)} ${size.padStart(10)} ${shown.padStart(9)} ${ratio.padStart(8)} ${`${rssMiB} MiB`.padStart(9)}  ${verdict}`);
  }
}
