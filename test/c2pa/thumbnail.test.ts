import { crc32, deflateSync } from 'node:zlib';
import { expect } from 'chai';
import jpeg from 'jpeg-js';
import { makeClaimThumbnail, THUMBNAIL_LONG_EDGE, ThumbnailError } from '../../shared/c2pa/thumbnail.js';
import { fixture } from './helpers.js';

type Rgba = [number, number, number, number];

/** Left half red, right half blue; the bottom quarter of the right half transparent. */
const pattern = (w: number, h: number) => (x: number, y: number): Rgba =>
  x < w / 2 ? [255, 0, 0, 255] : y >= (h * 3) / 4 ? [0, 0, 255, 0] : [0, 0, 255, 255];

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/**
 * An independent PNG writer for the decoder's tests: colour types 0/2/3/4/6, bit depths 1-16, a real filter per
 * row (cycling through all five) and optional Adam7 interlacing. Palette images map red/blue/transparent.
 */
function encodePng(width: number, height: number, opts: { colourType: number; depth: number; interlace?: boolean }, px: (x: number, y: number) => Rgba): Buffer {
  const { colourType, depth } = opts;
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colourType]!;
  const max = 2 ** depth - 1;
  const palette: Rgba[] = [[255, 0, 0, 255], [0, 0, 255, 255], [0, 0, 255, 0]];
  const samplesOf = ([r, g, b, a]: Rgba): number[] => {
    const scale = (v: number) => Math.round((v * max) / 255);
    const grey = Math.round((r + g + b) / 3);
    switch (colourType) {
      case 0: return [scale(grey)];
      case 2: return [scale(r), scale(g), scale(b)];
      case 3: return [palette.findIndex((p) => p.every((v, i) => v === [r, g, b, a][i]))];
      case 4: return [scale(grey), scale(a)];
      default: return [scale(r), scale(g), scale(b), scale(a)];
    }
  };
  const bitsPerPixel = channels * depth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const rows: Buffer[] = [];
  let rowNo = 0;
  for (const [x0, y0, dx, dy] of opts.interlace ? ADAM7 : [[0, 0, 1, 1]]) {
    const pw = width > x0! ? Math.ceil((width - x0!) / dx!) : 0;
    const ph = height > y0! ? Math.ceil((height - y0!) / dy!) : 0;
    if (!pw || !ph) continue;
    const stride = Math.ceil((pw * bitsPerPixel) / 8);
    let prev = Buffer.alloc(stride);
    for (let py = 0; py < ph; py += 1) {
      const raw = Buffer.alloc(stride);
      for (let pxi = 0; pxi < pw; pxi += 1) {
        samplesOf(px(x0! + pxi * dx!, y0! + py * dy!)).forEach((v, c) => {
          const index = pxi * channels + c;
          if (depth === 16) raw.writeUInt16BE(v, index * 2);
          else if (depth === 8) raw[index] = v;
          else raw[(index * depth) >> 3] |= v << (8 - depth - ((index * depth) & 7));
        });
      }
      const filter = rowNo++ % 5;
      const out = Buffer.alloc(stride + 1);
      out[0] = filter;
      for (let i = 0; i < stride; i += 1) {
        const a = i >= bpp ? raw[i - bpp]! : 0;
        const b = prev[i]!;
        const c = i >= bpp ? prev[i - bpp]! : 0;
        const p = a + b - c;
        const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
        const predictor = [0, a, b, (a + b) >> 1, paeth][filter]!;
        out[i + 1] = (raw[i]! - predictor) & 0xff;
      }
      rows.push(out);
      prev = raw;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([depth, colourType, 0, 0, opts.interlace ? 1 : 0], 8);
  const chunks = [chunk('IHDR', ihdr)];
  if (colourType === 3) {
    chunks.push(chunk('PLTE', Buffer.from(palette.flatMap(([r, g, b]) => [r, g, b]))));
    chunks.push(chunk('tRNS', Buffer.from(palette.map((p) => p[3]))));
  }
  const data = deflateSync(Buffer.concat(rows));
  // Split the image data over two IDAT chunks, as encoders do for large images.
  const half = data.length >> 1;
  chunks.push(chunk('IDAT', data.subarray(0, half)), chunk('IDAT', data.subarray(half)), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks]);
}

function jpegOf(width: number, height: number, px: (x: number, y: number) => Rgba): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) for (let x = 0; x < width; x += 1) data.set(px(x, y), (y * width + x) * 4);
  return jpeg.encode({ data, width, height }, 90).data;
}

/** A JPEG with an EXIF APP1 segment (big-endian TIFF) carrying only the Orientation tag. */
function withOrientation(jpg: Buffer, orientation: number, littleEndian = false): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  const u16 = (v: number, at: number) => (littleEndian ? tiff.writeUInt16LE(v, at) : tiff.writeUInt16BE(v, at));
  const u32 = (v: number, at: number) => (littleEndian ? tiff.writeUInt32LE(v, at) : tiff.writeUInt32BE(v, at));
  tiff.write(littleEndian ? 'II' : 'MM', 0, 'latin1');
  u16(42, 2);
  u32(8, 4);
  u16(1, 8); // one entry
  u16(0x0112, 10);
  u16(3, 12); // SHORT
  u32(1, 14);
  u16(orientation, 18);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpg.subarray(0, 2), app1, payload, jpg.subarray(2)]);
}

function decode(thumb: Uint8Array) {
  expect([...thumb.subarray(0, 3)]).to.deep.equal([0xff, 0xd8, 0xff]);
  const img = jpeg.decode(thumb, { useTArray: true, formatAsRGBA: true });
  const at = (x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
  return { width: img.width, height: img.height, at };
}

/** Within JPEG's loss of the expected colour. */
function near(actual: number[], expected: number[], tolerance = 40): void {
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `${actual} vs ${expected}`).to.be.at.most(tolerance));
}
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

describe('c2pa: claim thumbnails', function () {
  it('keeps a small JPEG at its size and shrinks a large one to the long edge, keeping what is where', async function () {
    const small = decode(await makeClaimThumbnail(await fixture('photo.jpg'), 'image/jpeg'));
    expect([small.width, small.height]).to.deep.equal([320, 240]);
    const big = decode(await makeClaimThumbnail(jpegOf(1600, 800, pattern(1600, 800)), 'image/jpeg'));
    expect(THUMBNAIL_LONG_EDGE).to.equal(512);
    expect([big.width, big.height]).to.deep.equal([512, 256]);
    near(big.at(100, 128), RED);
    near(big.at(400, 50), BLUE);
    near(big.at(400, 240), BLUE); // JPEG has no alpha: the source's blue stays
  });

  it('applies the EXIF orientation, as viewers show the photo', async function () {
    const jpg = jpegOf(400, 200, pattern(400, 200)); // red left, blue right
    for (const little of [false, true]) {
      const cw = decode(await makeClaimThumbnail(withOrientation(jpg, 6, little), 'image/jpeg'));
      expect([cw.width, cw.height]).to.deep.equal([200, 400]);
      near(cw.at(100, 50), RED); // turned clockwise: the left side is on top
      near(cw.at(100, 350), BLUE);
    }
    const ccw = decode(await makeClaimThumbnail(withOrientation(jpg, 8), 'image/jpeg'));
    near(ccw.at(100, 50), BLUE);
    near(ccw.at(100, 350), RED);
    const flipped = decode(await makeClaimThumbnail(withOrientation(jpg, 2), 'image/jpeg'));
    expect([flipped.width, flipped.height]).to.deep.equal([400, 200]);
    near(flipped.at(50, 100), BLUE);
  });

  const variants: { label: string; colourType: number; depth: number; interlace?: boolean; alpha: boolean; grey?: boolean }[] = [
    { label: 'RGB 8-bit', colourType: 2, depth: 8, alpha: false },
    { label: 'RGBA 8-bit', colourType: 6, depth: 8, alpha: true },
    { label: 'RGBA 16-bit', colourType: 6, depth: 16, alpha: true },
    { label: 'RGB 16-bit, Adam7 interlaced', colourType: 2, depth: 16, interlace: true, alpha: false },
    { label: 'RGBA 8-bit, Adam7 interlaced', colourType: 6, depth: 8, interlace: true, alpha: true },
    { label: 'palette 2-bit with tRNS', colourType: 3, depth: 2, alpha: true },
    { label: 'palette 8-bit with tRNS, interlaced', colourType: 3, depth: 8, interlace: true, alpha: true },
    { label: 'grey 1-bit', colourType: 0, depth: 1, alpha: false, grey: true },
    { label: 'grey 4-bit, interlaced', colourType: 0, depth: 4, interlace: true, alpha: false, grey: true },
    { label: 'grey + alpha 8-bit', colourType: 4, depth: 8, alpha: true, grey: true },
  ];
  for (const v of variants) {
    it(`decodes a ${v.label} PNG (every filter type), flattening transparency onto white`, async function () {
      // Odd sizes, so the Adam7 passes and the sub-byte rows have partial ends.
      const [w, h] = [1037, 333];
      // Grey images: light on the left, dark on the right (1-bit: white and black).
      const px = v.grey ? (x: number, y: number): Rgba => [...(x < w / 2 ? [255, 255, 255] : [0, 0, 0]), pattern(w, h)(x, y)[3]] as Rgba : pattern(w, h);
      const png = encodePng(w, h, v, px);
      const t = decode(await makeClaimThumbnail(png, 'image/png'));
      expect([t.width, t.height]).to.deep.equal([512, 164]);
      const [left, right] = v.grey ? [WHITE, [0, 0, 0]] : [RED, BLUE];
      near(t.at(100, 80), left);
      near(t.at(400, 40), right);
      near(t.at(400, 155), v.alpha ? WHITE : right);
    });
  }

  it('makes a thumbnail of the test fixture PNG', async function () {
    const t = decode(await makeClaimThumbnail(await fixture('graphic.png'), 'image/png'));
    expect(t.width).to.be.greaterThan(0);
  });

  it('refuses images it must not decode, with ThumbnailError', async function () {
    const refused = async (bytes: Uint8Array, mime: 'image/png' | 'image/jpeg', pattern?: RegExp) => {
      try {
        await makeClaimThumbnail(bytes, mime);
        expect.fail('expected ThumbnailError');
      } catch (err) {
        expect(err).to.be.instanceOf(ThumbnailError);
        if (pattern) expect((err as Error).message).to.match(pattern);
      }
    };
    // A header claiming 100 megapixels: refused before anything is decompressed.
    const huge = encodePng(8, 8, { colourType: 2, depth: 8 }, pattern(8, 8));
    huge.writeUInt32BE(10_000, 16);
    huge.writeUInt32BE(10_000, 20);
    await refused(huge, 'image/png', /megapixels/);
    const truncated = encodePng(64, 64, { colourType: 2, depth: 8 }, pattern(64, 64));
    await refused(truncated.subarray(0, 60), 'image/png');
    await refused(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg');
  });
});
