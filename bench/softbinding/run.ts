/**
 * bench/softbinding: how well the ISCC Image-Code (io.iscc.v0, 64 bits) matches a transformed copy of a signed
 * photograph back to its original, and how far apart distinct photographs stay, on real photographs.
 *
 * Photos: the photographs among Debian's wallpaper packages (see PHOTOS), fetched with `apt-get download` and
 * unpacked with `dpkg -x` into a cache under the OS temp dir (kept between runs). One file per picture; pictures
 * wider than 2560 px are first reduced to 2560 px wide. The signed original of each is that picture encoded once
 * as JPEG quality 92 with EXIF (Artist, Copyright) and an ICC profile.
 *
 * Copies of every original (geometric transforms are re-encoded as JPEG quality 85):
 *   jpeg-q60..q90   decode the original, re-encode at that quality
 *   resize-50/25    width and height halved / quartered
 *   strip           APP1..APP15 and COM segments removed from the original's bytes (no re-encoding)
 *   crop-2.5each    2.5% cut from each of the four sides (5% of width and of height, 9.75% of the area)
 *   crop-5area      1.27% cut from each side (5% of the area)
 *   png-to-jpeg     the picture as a lossless PNG (as if that were what was signed) vs the PNG saved as JPEG
 *                   (sharp's default quality 80); the pair is (code of the PNG, code of the JPEG)
 * True pairs: original vs each of its copies. False pairs: every copy (and original) vs every other photo's
 * original, i.e. what an index lookup with that copy would compare against.
 * Prints distance histograms and percentiles, recall and false matches per threshold, the threshold with the
 * largest margin, and the time per code for a 12 MP and a 2 MP JPEG. Goal: >= 95% recall, no false match.
 * Every image is also hashed in the other fingerprint mode: how many codes the fast path (JPEGs decoded at reduced
 * scale) and the exact path (the reference's pixels) agree on, and their largest Hamming distance (goal: <= 4).
 *
 *   npx tsx bench/softbinding/run.ts          (Debian/Ubuntu: needs apt-get and dpkg, and `apt-get update` once)
 * ISCC_BENCH_CACHE=dir to choose the cache directory; FINGERPRINT_MODE=fast|exact: the mode measured (default:
 * the service's default, fast).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { hammingDistance } from '../../shared/softbinding/iscc-codec.js';
import { FINGERPRINT_MODES, imageCodeFromFile, type FingerprintMode } from '../../shared/softbinding/iscc-image.js';

const CACHE = process.env.ISCC_BENCH_CACHE ?? path.join(tmpdir(), 'iscc-bench-wallpapers');
const MAX_WIDTH = 2560;
const MODE = (process.env.FINGERPRINT_MODE ?? 'fast') as FingerprintMode;
if (!FINGERPRINT_MODES.includes(MODE)) throw new Error(`FINGERPRINT_MODE must be one of ${FINGERPRINT_MODES.join(', ')}`);
const OTHER_MODE: FingerprintMode = MODE === 'fast' ? 'exact' : 'fast';

/**
 * The photographs (Debian 12 package contents). Left out as not photographs: every gnome-backgrounds picture
 * (rendered/vector art), ukui-wallpapers (digital art), plasma's Altai, Autumn (a painting), Canopee, Cascade,
 * Cluster, Elarun, Flow, FlyingKonqui, Honeywave, IceCold, Kay, Kokkini, MilkyWay, Opal, PastelHills, Patak,
 * SafeLanding, Shell, Volna; lomiri's analogpattern and Infinite-Sea (photo-manipulations), umang, Fossa and
 * Painting-Colors (digital art); MATE's abstract and desktop sets.
 */
const PLASMA = ['BytheWater', 'ColdRipple', 'ColorfulCups', 'DarkestHour', 'EveningGlow', 'FallenLeaf', 'Grey', 'Kite', 'OneStandsOut', 'Path', 'summer_1am'];
const MATE = ['Aqua', 'Blinds', 'Dune', 'FreshFlower', 'Garden', 'GreenMeadow', 'LadyBird', 'RainDrops', 'Storm', 'TwoWings', 'Wood', 'YellowFlower'];
const LOMIRI_1604 = [
  'Bridge_by_Sander_Klootwijk', 'Dragonfly_by_Bolly', 'Picture_0B_by_freespace', 'Picture_1A_by_freespace', 'Wine_by_Jakkub_Mede',
  'aitzgorri_by_Aitzol_Berasategi', 'free_by_Peter_Nerlich', 'friends_by_Aitzol_Berasategi', 'greentock_by_Peter_Nerlich',
  'life_by_Aitzol_Berasategi', 'picosdeeuropa_by_Aitzol_Berasategi', 'seeding_by_Clements_Engelhardt', 'sunset_by_Aitzol_Berasategi',
];
const LOMIRI_2004 = ['Kleiber_by_Lukas_Baubkus'];
const PACKAGES = ['plasma-workspace-wallpapers', 'mate-backgrounds', 'lomiri-wallpapers-16.04', 'lomiri-wallpapers-20.04'];

interface Photo {
  name: string;
  pkg: string;
  file: string;
}

function photoList(root: string): Photo[] {
  const plasmaFile = (name: string): string | undefined => {
    // Each plasma wallpaper ships many sizes of one picture: take the widest <= MAX_WIDTH (else the narrowest).
    const dir = path.join(root, 'usr/share/wallpapers', name, 'contents/images');
    if (!existsSync(dir)) return undefined;
    const sizes = readdirSync(dir)
      .map((f) => ({ f, w: Number(/^(\d+)x(\d+)\./.exec(f)?.[1] ?? NaN) }))
      .filter((s) => Number.isFinite(s.w))
      .sort((a, b) => a.w - b.w);
    const pick = [...sizes].reverse().find((s) => s.w <= MAX_WIDTH) ?? sizes[0];
    return pick && path.join(dir, pick.f);
  };
  const list: Array<[string, string, string | undefined]> = [
    ...PLASMA.map((n) => [n, 'plasma-workspace-wallpapers', plasmaFile(n)] as [string, string, string | undefined]),
    ...MATE.map((n) => [n, 'mate-backgrounds', path.join(root, 'usr/share/backgrounds/mate/nature', `${n}.jpg`)] as [string, string, string]),
    ...LOMIRI_1604.map((n) => [n, 'lomiri-wallpapers-16.04', path.join(root, 'usr/share/backgrounds', `${n}.jpg`)] as [string, string, string]),
    ...LOMIRI_2004.map((n) => [n, 'lomiri-wallpapers-20.04', path.join(root, 'usr/share/backgrounds', `${n}.jpg`)] as [string, string, string]),
  ];
  const photos: Photo[] = [];
  for (const [name, pkg, file] of list) {
    if (file && existsSync(file)) photos.push({ name, pkg, file });
    else console.warn(`  (missing from this Debian release: ${pkg} ${name})`);
  }
  return photos;
}

function ensureWallpapers(): string {
  const root = path.join(CACHE, 'root');
  const done = path.join(CACHE, '.complete');
  if (existsSync(done)) return root;
  mkdirSync(path.join(CACHE, 'debs'), { recursive: true });
  console.log(`downloading ${PACKAGES.join(', ')} into ${CACHE} (not installing them)`);
  try {
    execFileSync('apt-get', ['download', ...PACKAGES], { cwd: path.join(CACHE, 'debs'), stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (err) {
    throw new Error(`apt-get download failed (run \`apt-get update\` first?): ${(err as Error).message}`);
  }
  for (const deb of readdirSync(path.join(CACHE, 'debs')).filter((f) => f.endsWith('.deb'))) {
    execFileSync('dpkg', ['-x', path.join(CACHE, 'debs', deb), root]);
  }
  writeFileSync(done, new Date().toISOString());
  return root;
}

/** Removes APP1..APP15 and COM segments (EXIF, XMP, ICC, C2PA...) from a JPEG without touching the image data. */
function stripJpegMetadata(jpeg: Buffer): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG');
  const parts: Buffer[] = [jpeg.subarray(0, 2)];
  let pos = 2;
  while (pos < jpeg.length) {
    if (jpeg[pos] !== 0xff) throw new Error('JPEG marker expected');
    const marker = jpeg[pos + 1]!;
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker === 0xda) {
      parts.push(jpeg.subarray(pos)); // start of scan: the rest is image data
      break;
    }
    const len = jpeg.readUInt16BE(pos + 2);
    const isMetadata = (marker >= 0xe1 && marker <= 0xef) || marker === 0xfe;
    if (!isMetadata) parts.push(jpeg.subarray(pos, pos + 2 + len));
    pos += 2 + len;
  }
  return Buffer.concat(parts);
}

const TRANSFORMS = ['jpeg-q60', 'jpeg-q70', 'jpeg-q75', 'jpeg-q80', 'jpeg-q90', 'resize-50', 'resize-25', 'strip', 'crop-2.5each', 'crop-5area', 'png-to-jpeg'] as const;
type Transform = (typeof TRANSFORMS)[number];

async function copyOf(t: Transform, original: Buffer, w: number, h: number): Promise<Buffer> {
  const q = /^jpeg-q(\d+)$/.exec(t);
  if (q) return sharp(original).jpeg({ quality: Number(q[1]) }).toBuffer();
  switch (t) {
    case 'resize-50':
      return sharp(original).resize(Math.round(w / 2), Math.round(h / 2), { fit: 'fill' }).jpeg({ quality: 85 }).toBuffer();
    case 'resize-25':
      return sharp(original).resize(Math.round(w / 4), Math.round(h / 4), { fit: 'fill' }).jpeg({ quality: 85 }).toBuffer();
    case 'strip':
      return stripJpegMetadata(original);
    case 'crop-2.5each':
    case 'crop-5area': {
      const f = t === 'crop-2.5each' ? 0.025 : (1 - Math.sqrt(0.95)) / 2;
      const left = Math.round(w * f);
      const top = Math.round(h * f);
      return sharp(original).extract({ left, top, width: w - 2 * left, height: h - 2 * top }).jpeg({ quality: 85 }).toBuffer();
    }
    default:
      throw new Error(`no copy rule for ${t}`);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function histogram(title: string, values: number[], maxBar = 50): void {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const peak = Math.max(...counts.values());
  console.log(`  ${title} (n=${values.length})`);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  for (let d = lo; d <= hi; d++) {
    const c = counts.get(d) ?? 0;
    const bar = c ? '#'.repeat(Math.max(1, Math.round((c / peak) * maxBar))) : '';
    console.log(`    ${String(d).padStart(2)} ${String(c).padStart(6)} ${bar}`);
  }
}

function summary(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const p = (x: number) => percentile(s, x);
  return `min ${s[0]} p1 ${p(1)} p5 ${p(5)} p50 ${p(50)} p95 ${p(95)} p99 ${p(99)} max ${s[s.length - 1]}`;
}

async function timeCode(label: string, jpeg: Buffer, mode: FingerprintMode): Promise<void> {
  for (let i = 0; i < 3; i++) await imageCodeFromFile(jpeg, { mode });
  const runs: number[] = [];
  for (let i = 0; i < 12; i++) {
    const t0 = performance.now();
    await imageCodeFromFile(jpeg, { mode });
    runs.push(performance.now() - t0);
  }
  const dec: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    await sharp(jpeg, { ignoreIcc: true }).raw().toBuffer();
    dec.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  dec.sort((a, b) => a - b);
  const meta = await sharp(jpeg).metadata();
  console.log(
    `  ${label.padEnd(6)} ${mode.padEnd(5)} ${meta.width}x${meta.height} JPEG (${(jpeg.length / 1e6).toFixed(1)} MB): ` +
      `median ${percentile(runs, 50).toFixed(0)} ms, p90 ${percentile(runs, 90).toFixed(0)} ms per code ` +
      `(of which JPEG decode alone: median ${percentile(dec, 50).toFixed(0)} ms)`,
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  const root = ensureWallpapers();
  const photos = photoList(root);
  console.log(`\n${photos.length} photographs:`);
  for (const pkg of PACKAGES) {
    const names = photos.filter((p) => p.pkg === pkg).map((p) => p.name);
    if (names.length) console.log(`  ${pkg} (${names.length}): ${names.join(', ')}`);
  }

  const pngCodes: Buffer[] = [];
  const codeMs: number[] = [];
  // The other mode's code of every image: its distance to this mode's.
  const modeDistances: number[] = [];
  const code = async (b: Buffer) => {
    const t0 = performance.now();
    const c = await imageCodeFromFile(b, { mode: MODE });
    codeMs.push(performance.now() - t0);
    modeDistances.push(hammingDistance(c.hash, (await imageCodeFromFile(b, { mode: OTHER_MODE })).hash));
    return c.hash;
  };
  const origCodes: Buffer[] = [];
  const copyCodes: Record<string, Buffer>[] = [];
  for (const photo of photos) {
    let img = sharp(photo.file).autoOrient();
    const m = await sharp(photo.file).autoOrient().metadata();
    const width0 = m.autoOrient?.width ?? m.width!;
    if (width0 > MAX_WIDTH) img = img.resize({ width: MAX_WIDTH });
    const png = await img.png({ compressionLevel: 1 }).toBuffer();
    const original = await sharp(png)
      .jpeg({ quality: 92 })
      .withIccProfile('srgb')
      .withExif({ IFD0: { Artist: 'Bench Photographer', Copyright: 'Bench Newsroom' } })
      .toBuffer();
    const om = await sharp(original).metadata();
    const set = {} as Record<Transform, Buffer>;
    for (const t of TRANSFORMS) set[t] = t === 'png-to-jpeg' ? await sharp(png).jpeg().toBuffer() : await copyOf(t, original, om.width!, om.height!);
    const stripped = await sharp(set.strip).metadata();
    if (stripped.exif || stripped.icc || !om.exif || !om.icc) throw new Error(`metadata strip check failed for ${photo.name}`);
    origCodes.push(await code(original));
    pngCodes.push(await code(png));
    const cc: Record<string, Buffer> = {};
    for (const t of TRANSFORMS) cc[t] = await code(set[t]);
    copyCodes.push(cc);
    if (process.stdout.isTTY) process.stdout.write(`\r  hashed ${origCodes.length}/${photos.length}: ${photo.name} (${om.width}x${om.height})`.padEnd(90));
  }
  if (process.stdout.isTTY) console.log();

  // True pairs: original (or the PNG, for png-to-jpeg) vs its copy.
  const trueByT = new Map<Transform, number[]>();
  const trueAll: number[] = [];
  for (let i = 0; i < photos.length; i++) {
    for (const t of TRANSFORMS) {
      const base = t === 'png-to-jpeg' ? pngCodes[i]! : origCodes[i]!;
      const d = hammingDistance(base, copyCodes[i]![t]!);
      if (!trueByT.has(t)) trueByT.set(t, []);
      trueByT.get(t)!.push(d);
      trueAll.push(d);
    }
  }
  // False pairs: originals against originals, and every copy against every other photo's original.
  const falseOrig: number[] = [];
  for (let i = 0; i < photos.length; i++) for (let j = i + 1; j < photos.length; j++) falseOrig.push(hammingDistance(origCodes[i]!, origCodes[j]!));
  const falseQuery: number[] = [];
  let closestFalse = { d: 65, a: '', b: '' };
  for (let i = 0; i < photos.length; i++) {
    for (let j = 0; j < photos.length; j++) {
      if (i === j) continue;
      for (const [t, c] of [['original', origCodes[i]!] as const, ...TRANSFORMS.map((t) => [t, copyCodes[i]![t]!] as const)]) {
        const d = hammingDistance(c, origCodes[j]!);
        falseQuery.push(d);
        if (d < closestFalse.d) closestFalse = { d, a: `${photos[i]!.name} (${t})`, b: photos[j]!.name };
      }
    }
  }

  console.log(`\nfingerprint mode measured: ${MODE}`);
  console.log(`fast vs exact, same image (${modeDistances.length} images: originals, PNGs, copies): ` +
    `${modeDistances.filter((d) => d === 0).length} codes identical, largest Hamming distance ${Math.max(...modeDistances)} (goal <= 4); ${summary(modeDistances)}`);
  console.log('\nTrue pairs (original vs its copy), Hamming distance of the 64-bit codes:');
  for (const t of TRANSFORMS) console.log(`  ${t.padEnd(13)} ${summary(trueByT.get(t)!)}`);
  console.log(`  ${'all'.padEnd(13)} ${summary(trueAll)}`);
  const withoutCrop = TRANSFORMS.filter((t) => !t.startsWith('crop')).flatMap((t) => trueByT.get(t)!);
  console.log(`  ${'all but crops'.padEnd(13)} ${summary(withoutCrop)}`);
  console.log('\nFalse pairs (distinct photographs):');
  console.log(`  originals vs originals (${falseOrig.length} pairs): ${summary(falseOrig)}`);
  console.log(`  any copy vs other originals (${falseQuery.length} pairs): ${summary(falseQuery)}`);
  console.log(`  closest distinct pair: ${closestFalse.a} vs ${closestFalse.b} at ${closestFalse.d}`);
  console.log();
  histogram('true pairs', trueAll);
  histogram('true pairs, crop-2.5each only', trueByT.get('crop-2.5each')!);
  histogram('false pairs (any copy vs other originals)', falseQuery);

  const minFalse = Math.min(...falseQuery);
  console.log('\nRecall (true pairs with distance <= T) and false matches (false pairs with distance <= T):');
  const header = ['T', ...TRANSFORMS.map((t) => t.replace('jpeg-', '')), 'all', 'false'];
  console.log('  ' + header.map((h, i) => (i === 0 ? h.padStart(2) : h.padStart(Math.max(7, h.length + 1)))).join(''));
  const lastT = Math.min(32, minFalse + 2);
  for (let T = 0; T <= lastT; T++) {
    const cols = TRANSFORMS.map((t) => {
      const v = trueByT.get(t)!;
      return `${((100 * v.filter((d) => d <= T).length) / v.length).toFixed(1)}%`;
    });
    const all = `${((100 * trueAll.filter((d) => d <= T).length) / trueAll.length).toFixed(1)}%`;
    const fm = falseQuery.filter((d) => d <= T).length;
    console.log('  ' + [String(T).padStart(2), ...cols.map((c, i) => c.padStart(Math.max(7, header[i + 1]!.length + 1))), all.padStart(7), String(fm).padStart(7)].join(''));
  }

  // Threshold: the largest margin between true and false distances. If every true pair is below every false pair,
  // the middle of the gap; otherwise the largest T with no false match, with the recall it gives.
  const maxTrue = Math.max(...trueAll);
  const maxTrueNoCrop = Math.max(...withoutCrop);
  // Each 64-bit word is 32 ones and 32 zeros (median threshold) unless coefficients tie, so distances come in steps of 2.
  const odd = [...trueAll, ...falseQuery].filter((d) => d % 2).length;
  console.log(`\nodd distances: ${odd} of ${trueAll.length + falseQuery.length} (median thresholding sets 32 of 64 bits, so bits flip in pairs)`);
  console.log(`max true distance ${maxTrue} (without crops: ${maxTrueNoCrop}); min false distance ${minFalse}`);
  let T: number;
  if (maxTrue < minFalse) {
    T = Math.floor((maxTrue + minFalse - 1) / 2);
    console.log(`separable: every threshold from ${maxTrue} to ${minFalse - 1} gives 100% recall and no false match; middle: T = ${T}`);
  } else {
    T = minFalse - 1;
    console.log(`not separable with crops: largest threshold without a false match is T = ${T}`);
  }
  const recall = (v: number[]) => ((100 * v.filter((d) => d <= T).length) / v.length).toFixed(1);
  console.log(`at T = ${T}: recall ${recall(trueAll)}% overall, ${recall(withoutCrop)}% without crops, ` +
    `crop-2.5each ${recall(trueByT.get('crop-2.5each')!)}%, crop-5area ${recall(trueByT.get('crop-5area')!)}%; ` +
    `false matches ${falseQuery.filter((d) => d <= T).length} of ${falseQuery.length}; margin to the closest false pair ${minFalse - T}`);

  // A tighter alternative for a large index: the smallest T at which every transform, crops included, reaches the
  // 95% recall goal (fewer false candidates per lookup, see the shares below).
  const goalT = Array.from({ length: 65 }, (_, t) => t).find((t) =>
    TRANSFORMS.every((tr) => trueByT.get(tr)!.filter((d) => d <= t).length >= 0.95 * trueByT.get(tr)!.length),
  )!;
  console.log(`smallest T with >= 95% recall for every transform: T = ${goalT}: recall ${((100 * trueAll.filter((d) => d <= goalT).length) / trueAll.length).toFixed(1)}% overall, ` +
    `${((100 * withoutCrop.filter((d) => d <= goalT).length) / withoutCrop.length).toFixed(1)}% without crops, ` +
    `crop-2.5each ${((100 * trueByT.get('crop-2.5each')!.filter((d) => d <= goalT).length) / photos.length).toFixed(1)}%; ` +
    `false matches ${falseQuery.filter((d) => d <= goalT).length}; margin to the closest false pair ${minFalse - goalT}`);
  // Scale: the corpus has few distinct pairs; an index of N images compares a query with N codes. For reference, the
  // share of pairs within T for independent random 64-bit codes, and the corpus' own false-pair tail.
  const binomTail = (t: number) => {
    let sum = 0n;
    let c = 1n;
    for (let k = 0; k <= t; k++) {
      sum += c;
      c = (c * BigInt(64 - k)) / BigInt(k + 1);
    }
    return Number(sum) / 2 ** 64;
  };
  console.log('share of pairs with distance <= T: ' +
    [8, 12, 16, 20, 24].map((t) => `T=${t}: random codes ${binomTail(t).toExponential(1)}, distinct photos here ${(falseQuery.filter((d) => d <= t).length / falseQuery.length).toExponential(1)}`).join('; '));

  const sorted = [...codeMs].sort((a, b) => a - b);
  console.log(`\n${codeMs.length} codes (${MODE}) of <= ${MAX_WIDTH}px images: median ${percentile(sorted, 50).toFixed(0)} ms, p90 ${percentile(sorted, 90).toFixed(0)} ms`);
  console.log('Time per code (decode + normalize + hash, one at a time):');
  const source = photos.find((p) => p.name === 'Dragonfly_by_Bolly')?.file ?? photos[0]!.file;
  const twelve = await sharp(source).resize(4000, 3000, { fit: 'cover' }).jpeg({ quality: 92 }).toBuffer();
  const two = await sharp(source).resize(1632, 1224, { fit: 'cover' }).jpeg({ quality: 92 }).toBuffer();
  for (const mode of FINGERPRINT_MODES) await timeCode('12 MP', twelve, mode);
  for (const mode of FINGERPRINT_MODES) await timeCode('2 MP', two, mode);
  console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
