import { checkBits } from './iscc-codec.js';

/**
 * The Image-Code body (iscc-core, iscc_core/code_content_image.py `soft_hash_image_v0` and iscc_core/dct.py): 1024
 * gray values (32x32, row-major) -> DCT of every row, then of every column (the recursive DCT of nayuki.io, same
 * operation order) -> the 8x8 block of the lowest frequencies (further blocks shifted by one column/row for 128..256
 * bits) -> one bit per coefficient, 1 if it is greater than the block's median. Bit-exact with the reference's test
 * vectors. The cosines are the correctly rounded doubles CPython's math.cos (glibc) returns: V8's Math.cos is one ulp
 * off for two of the 31 arguments, which can flip a bit when a coefficient sits on the median.
 */

/**
 * 2*cos((i + 0.5) * pi / n) for n = 32, 16, 8, 4, 2 as CPython/glibc computes it (correctly rounded; checked with
 * 60-digit arithmetic). V8's Math.cos differs by one ulp for n = 32, i = 7 and 8.
 */
const TWO_COS: Record<number, readonly number[]> = {
  32: [
    1.9975909124103448, 1.978353019929562, 1.940062506389088, 1.8830881303660416, 1.8079785862468867,
    1.7154572200005442, 1.6064150629612899, 1.4819022507099182, 1.3431179096940367, 1.191398608984867,
    1.0282054883864433, 0.8551101868605644, 0.6737797067844401, 0.48596035980652796, 0.2934609489107235,
    0.09813534865483625,
  ],
  16: [
    1.9903694533443939, 1.9138806714644176, 1.76384252869671, 1.546020906725474, 1.268786568327291,
    0.9427934736519956, 0.5805693545089247, 0.19603428065912154,
  ],
  8: [1.9615705608064609, 1.6629392246050905, 1.1111404660392046, 0.39018064403225666],
  4: [1.8477590650225735, 0.7653668647301797],
  2: [1.4142135623730951],
};

/** The reference's recursive DCT-II (nayuki.io fast DCT), unscaled, same operations in the same order. */
export function dct(v: ArrayLike<number>): number[] {
  const n = v.length;
  if (n === 1) return [v[0]!];
  if (n === 0 || n % 2 !== 0) throw new RangeError('dct input length must be a power of two');
  const half = n / 2;
  // Lengths above 32 (not used by the image code) fall back to V8's cosine.
  const cos2 = TWO_COS[n] ?? Array.from({ length: half }, (_, i) => Math.cos(((i + 0.5) * Math.PI) / n) * 2.0);
  const alpha = new Array<number>(half);
  const beta = new Array<number>(half);
  for (let i = 0; i < half; i++) {
    const a = v[i]!;
    const b = v[n - 1 - i]!;
    alpha[i] = a + b;
    beta[i] = (a - b) / cos2[i]!;
  }
  const ra = dct(alpha);
  const rb = dct(beta);
  const result = new Array<number>(n);
  for (let i = 0; i < half - 1; i++) {
    result[2 * i] = ra[i]!;
    result[2 * i + 1] = rb[i]! + rb[i + 1]!;
  }
  result[n - 2] = ra[half - 1]!;
  result[n - 1] = rb[half - 1]!;
  return result;
}

/**
 * The Image-Code body: `bits` bits (32..256, a multiple of 32) from 1024 gray values (32x32, row-major).
 * Same result as iscc-core's `soft_hash_image_v0(pixels, bits)[:bits // 8]`.
 */
export function softHashImageV0(pixels: ArrayLike<number>, bits = 64): Buffer {
  checkBits(bits);
  if (pixels.length !== 1024) throw new RangeError(`expected 1024 gray values (32x32), got ${pixels.length}`);
  // DCT of every row, then of every column.
  const rows: number[][] = [];
  for (let y = 0; y < 32; y++) {
    const row = new Array<number>(32);
    for (let x = 0; x < 32; x++) row[x] = pixels[y * 32 + x]!;
    rows.push(dct(row));
  }
  const cols: number[][] = [];
  for (let x = 0; x < 32; x++) cols.push(dct(rows.map((r) => r[x]!)));
  const m = (y: number, x: number) => cols[x]![y]!;

  const out = Buffer.alloc(bits / 8);
  let bit = 0;
  // 8x8 blocks at (col, row) offsets (0,0), (1,0), (0,1), (1,1): one 64-bit word each.
  for (const [ox, oy] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ] as const) {
    const block = new Float64Array(64);
    for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) block[y * 8 + x] = m(oy + y, ox + x);
    const sorted = Float64Array.from(block).sort();
    const median = (sorted[31]! + sorted[32]!) / 2;
    for (let i = 0; i < 64 && bit < bits; i++, bit++) {
      if (block[i]! > median) out[bit >> 3]! |= 0x80 >> (bit & 7);
    }
    if (bit >= bits) break;
  }
  return out;
}
