import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import sharp from 'sharp';
import {
  base32Decode,
  base32Encode,
  decodeImageCode,
  encodeImageCode,
  hammingDistance,
  hashToBigInt,
  hashToInt64,
  imageCodeToInt64String,
  int64ToHash,
  int64ToImageCode,
} from '../../shared/softbinding/iscc-codec.js';
import {
  decodeForFingerprint,
  imageCodeFromFile,
  imageCodeFromPixels,
  imagePixelsFromFile,
  reducedJpegSize,
  REDUCED_DECODE_MIN_EDGE,
} from '../../shared/softbinding/iscc-image.js';
import {
  dct,
  softHashImageV0,
} from '../../shared/softbinding/iscc-soft-hash.js';
import {
  resampleBicubicL,
} from '../../shared/softbinding/pillow-bicubic.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'softbinding');

/**
 * The reference's sample image, 32x32 normalized gray values: IMG_SAMPLE_PIXELS of iscc/iscc-core
 * tests/test_code_content_image.py, also the input of gen_image_code_v0 test_0003_img_256 in iscc_core/data.json.
 */
// prettier-ignore
const IMG_SAMPLE_PIXELS = [
  23, 17, 13, 15, 25, 79, 91, 91, 105, 68, 109, 99, 98, 93, 75, 69, 58, 51, 51, 71, 153, 159, 130, 80, 94, 80, 90, 77, 50, 19, 23, 26,
  18, 16, 8, 9, 16, 68, 107, 112, 73, 79, 112, 97, 106, 90, 72, 76, 87, 67, 43, 112, 174, 161, 122, 74, 97, 68, 56, 72, 50, 17, 18, 22,
  15, 18, 10, 7, 11, 64, 141, 95, 70, 96, 110, 128, 121, 70, 67, 68, 102, 129, 124, 166, 182, 168, 103, 47, 88, 71, 44, 62, 53, 17, 18, 21,
  13, 17, 11, 7, 6, 112, 200, 173, 101, 93, 123, 128, 94, 71, 75, 77, 115, 133, 154, 177, 206, 178, 84, 33, 70, 71, 45, 42, 49, 18, 17, 20,
  13, 17, 12, 7, 6, 107, 188, 214, 184, 98, 90, 101, 87, 84, 80, 83, 108, 121, 137, 177, 213, 188, 53, 31, 35, 50, 49, 35, 40, 20, 16, 19,
  17, 18, 12, 7, 8, 89, 185, 213, 207, 173, 79, 82, 92, 89, 73, 94, 112, 96, 80, 126, 181, 175, 45, 27, 35, 25, 37, 42, 42, 22, 16, 20,
  19, 18, 13, 7, 8, 69, 180, 223, 208, 190, 148, 116, 120, 99, 71, 85, 121, 99, 106, 121, 117, 126, 63, 22, 36, 31, 28, 46, 48, 24, 17, 20,
  18, 20, 16, 8, 7, 61, 143, 221, 223, 207, 176, 129, 130, 88, 98, 73, 98, 122, 124, 130, 129, 90, 53, 16, 32, 44, 31, 47, 44, 24, 18, 19,
  18, 22, 17, 8, 6, 53, 97, 193, 221, 216, 200, 153, 130, 111, 99, 93, 103, 144, 129, 105, 106, 70, 44, 21, 25, 39, 33, 51, 40, 23, 19, 19,
  19, 24, 19, 9, 5, 43, 98, 178, 215, 221, 188, 152, 155, 123, 115, 103, 109, 147, 146, 136, 106, 81, 53, 22, 26, 27, 35, 51, 37, 23, 19, 20,
  21, 25, 20, 11, 5, 28, 103, 161, 197, 207, 190, 179, 169, 139, 133, 119, 105, 139, 124, 132, 115, 88, 61, 22, 36, 43, 38, 55, 36, 25, 24, 24,
  23, 25, 19, 13, 6, 16, 87, 112, 158, 188, 182, 168, 166, 153, 129, 123, 132, 127, 159, 155, 119, 106, 71, 27, 35, 41, 47, 59, 39, 28, 26, 27,
  24, 25, 19, 14, 8, 6, 75, 128, 161, 171, 174, 153, 167, 169, 133, 93, 154, 125, 114, 96, 103, 83, 74, 31, 32, 40, 50, 72, 42, 31, 27, 28,
  26, 24, 18, 16, 13, 3, 54, 131, 164, 163, 185, 191, 182, 175, 168, 128, 149, 131, 64, 125, 134, 82, 49, 35, 33, 46, 55, 72, 38, 28, 26, 28,
  26, 23, 18, 17, 16, 9, 29, 128, 167, 180, 195, 175, 146, 207, 182, 157, 129, 107, 140, 128, 156, 108, 87, 33, 33, 44, 56, 49, 32, 27, 26, 30,
  26, 24, 18, 18, 19, 19, 22, 107, 174, 168, 168, 203, 147, 202, 223, 166, 127, 75, 84, 133, 145, 113, 80, 33, 39, 53, 43, 28, 30, 33, 31, 35,
  26, 21, 19, 23, 28, 25, 19, 80, 146, 134, 210, 161, 199, 151, 225, 175, 128, 90, 137, 173, 102, 81, 56, 38, 55, 61, 33, 26, 36, 39, 35, 35,
  26, 23, 25, 26, 33, 38, 21, 32, 141, 207, 194, 184, 134, 150, 215, 202, 129, 68, 144, 124, 104, 98, 66, 56, 70, 54, 38, 38, 36, 36, 37, 38,
  26, 26, 26, 25, 31, 40, 39, 27, 93, 207, 211, 161, 179, 201, 159, 210, 139, 48, 99, 125, 115, 86, 75, 68, 55, 39, 40, 35, 35, 38, 39, 42,
  27, 27, 30, 27, 30, 35, 42, 43, 65, 137, 202, 194, 166, 175, 136, 195, 157, 58, 98, 110, 112, 90, 80, 54, 20, 23, 33, 40, 39, 42, 41, 43,
  26, 27, 36, 29, 29, 34, 37, 43, 38, 100, 198, 222, 215, 208, 183, 181, 173, 87, 110, 130, 125, 108, 100, 48, 25, 29, 34, 41, 44, 45, 44, 45,
  26, 27, 36, 31, 33, 35, 31, 34, 38, 118, 234, 231, 241, 212, 227, 180, 119, 149, 138, 141, 146, 142, 131, 60, 48, 49, 42, 42, 45, 47, 46, 45,
  30, 36, 34, 41, 43, 44, 43, 55, 61, 103, 242, 250, 249, 230, 239, 223, 139, 196, 156, 163, 170, 176, 152, 47, 41, 55, 59, 57, 52, 45, 45, 46,
  35, 45, 34, 38, 52, 57, 61, 54, 63, 104, 220, 254, 241, 240, 240, 216, 169, 177, 173, 213, 208, 195, 168, 67, 44, 57, 52, 45, 48, 45, 45, 48,
  47, 52, 38, 40, 45, 53, 62, 74, 98, 104, 137, 209, 199, 181, 220, 215, 180, 109, 122, 241, 236, 214, 163, 60, 58, 48, 61, 54, 49, 44, 46, 50,
  58, 52, 41, 37, 52, 62, 69, 98, 96, 81, 71, 110, 122, 104, 121, 120, 93, 50, 67, 219, 249, 215, 127, 66, 59, 54, 41, 58, 55, 41, 45, 53,
  67, 61, 54, 32, 67, 87, 81, 92, 79, 70, 61, 102, 90, 82, 74, 71, 70, 57, 40, 110, 187, 132, 88, 81, 68, 56, 48, 58, 64, 44, 45, 52,
  73, 72, 51, 36, 80, 87, 85, 88, 63, 70, 75, 87, 81, 75, 75, 74, 78, 67, 50, 54, 69, 50, 73, 79, 75, 57, 62, 55, 65, 55, 45, 52,
  77, 72, 40, 51, 78, 74, 91, 85, 54, 78, 91, 72, 83, 73, 76, 73, 76, 74, 58, 56, 67, 49, 66, 74, 61, 57, 68, 63, 54, 61, 53, 51,
  72, 70, 56, 65, 68, 76, 88, 76, 56, 81, 96, 68, 80, 73, 72, 75, 77, 66, 63, 61, 65, 53, 65, 69, 59, 59, 61, 70, 53, 64, 51, 55,
  70, 68, 64, 67, 66, 70, 79, 68, 66, 81, 86, 69, 78, 73, 73, 73, 77, 65, 62, 68, 66, 58, 67, 62, 64, 59, 61, 62, 55, 63, 47, 52,
  77, 68, 64, 69, 63, 68, 69, 72, 73, 84, 76, 72, 78, 77, 74, 72, 77, 67, 67, 64, 70, 59, 64, 65, 66, 65, 60, 65, 53, 61, 49, 51,
];
const WHITE = new Array<number>(1024).fill(255);
const BLACK = new Array<number>(1024).fill(0);

/** A photo-like test scene: smooth gradients, a few shapes, light noise; `variant` moves and recolours them. */
function scene(width: number, height: number, variant = 0): Buffer {
  const buf = Buffer.alloc(width * height * 3);
  let seed = 1000 + variant;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 13) - 6;
  const cx = width * (0.3 + 0.15 * variant);
  const cy = height * (0.35 + 0.1 * (variant % 3));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const t = variant % 2 ? y / height : x / width;
      let r = 30 + 190 * t;
      let g = 90 + 100 * Math.sin((x + y * variant) / (width / 5));
      let b = 200 - 150 * (y / height);
      const dx = x - cx;
      const dy = y - cy;
      if (dx * dx + dy * dy < (height * 0.2) ** 2) [r, g, b] = [240 - 60 * variant, 210, 30 + 50 * variant];
      if (x > width * 0.55 && x < width * 0.9 && y > height * (0.6 - 0.1 * variant) && y < height * 0.9) [r, g, b] = [20, 30, 80];
      buf[i] = Math.max(0, Math.min(255, Math.round(r + noise())));
      buf[i + 1] = Math.max(0, Math.min(255, Math.round(g + noise())));
      buf[i + 2] = Math.max(0, Math.min(255, Math.round(b + noise())));
    }
  }
  return buf;
}

const raw = (width: number, height: number, channels: 3 | 4 = 3) => ({ raw: { width, height, channels } });

describe('ISCC Image-Code (io.iscc.v0)', () => {
  describe('reference vectors (iscc/iscc-core)', () => {
    // iscc_core/data.json, "gen_image_code_v0"
    it('test_0000_all_black_64', () => {
      expect(imageCodeFromPixels(BLACK, 64).iscc).to.equal('ISCC:EEAQAAAAAAAAAAAA');
    });
    it('test_0001_all_white_128', () => {
      expect(imageCodeFromPixels(WHITE, 128).iscc).to.equal('ISCC:EEBYAAAAAAAAAAAAAAAAAAAAAAAAA');
    });
    it('test_0003_img_256', () => {
      expect(imageCodeFromPixels(IMG_SAMPLE_PIXELS, 256).iscc).to.equal(
        'ISCC:EED4GQZQTY6J5DTHQ2DWCPDZHQOM6QZQTY6J5DTFZ2DWCPDZHQOMXDI',
      );
    });

    // tests/test_code_content_image.py
    it('gen_image_code_v0 of the sample at 64 (default), 32 and 256 bits', () => {
      expect(imageCodeFromPixels(IMG_SAMPLE_PIXELS).iscc).to.equal('ISCC:EEA4GQZQTY6J5DTH');
      expect(imageCodeFromPixels(IMG_SAMPLE_PIXELS, 32).iscc).to.equal('ISCC:EEAMGQZQTY');
      expect(imageCodeFromPixels(IMG_SAMPLE_PIXELS, 256).iscc).to.equal(
        'ISCC:EED4GQZQTY6J5DTHQ2DWCPDZHQOM6QZQTY6J5DTFZ2DWCPDZHQOMXDI',
      );
    });
    it('soft_hash_image_v0 of the sample, white and black', () => {
      expect(softHashImageV0(IMG_SAMPLE_PIXELS, 64).toString('hex')).to.equal('c343309e3c9e8e67');
      expect(softHashImageV0(IMG_SAMPLE_PIXELS, 256).toString('hex')).to.equal(
        'c343309e3c9e8e678687613c793c1ccf43309e3c9e8e65ce87613c793c1ccb8d',
      );
      expect(softHashImageV0(WHITE, 64).toString('hex')).to.equal('8000000000000000');
      expect(softHashImageV0(WHITE, 256).toString('hex')).to.equal('80'.padEnd(64, '0'));
      expect(softHashImageV0(BLACK, 64).toString('hex')).to.equal('0000000000000000');
      expect(softHashImageV0(BLACK, 256).toString('hex')).to.equal(''.padEnd(64, '0'));
    });
    it('gen_image_code_v0 of white at 64, 96, 128 and 256 bits', () => {
      expect(imageCodeFromPixels(WHITE, 64).iscc).to.equal('ISCC:EEAYAAAAAAAAAAAA');
      expect(imageCodeFromPixels(WHITE, 96).iscc).to.equal('ISCC:EEBIAAAAAAAAAAAAAAAAAAA');
      expect(imageCodeFromPixels(WHITE, 128).iscc).to.equal('ISCC:EEBYAAAAAAAAAAAAAAAAAAAAAAAAA');
      expect(imageCodeFromPixels(WHITE, 256).iscc).to.equal('ISCC:EEDYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    });
    it('dct: zeros, ones, range (test_dct_*)', () => {
      expect(dct(new Array(64).fill(0))).to.deep.equal(new Array(64).fill(0));
      expect(dct(new Array(64).fill(1))).to.deep.equal([64, ...new Array(63).fill(0)]);
      expect(dct(Array.from({ length: 64 }, (_, i) => i))[0]).to.equal(2016);
      expect(() => dct([])).to.throw(RangeError);
    });
    it('refuses bad input', () => {
      expect(() => imageCodeFromPixels(WHITE.slice(1))).to.throw(RangeError);
      expect(() => imageCodeFromPixels(WHITE, 48)).to.throw(RangeError);
      expect(() => imageCodeFromPixels(WHITE, 288)).to.throw(RangeError);
    });
  });

  describe('codec and storage forms', () => {
    it('base32 round-trips without padding', () => {
      for (let len = 0; len < 12; len++) {
        const data = Buffer.from(Array.from({ length: len }, (_, i) => (i * 37 + 11) & 0xff));
        const text = base32Encode(data);
        expect(text).to.match(/^[A-Z2-7]*$/);
        expect(base32Decode(text)).to.deep.equal(data);
        expect(base32Decode(text.toLowerCase())).to.deep.equal(data);
      }
      expect(base32Encode(Buffer.from('foobar'))).to.equal('MZXW6YTBOI'); // RFC 4648 test vector, unpadded
    });
    it('decodes an Image-Code to its body and length, and re-encodes it', () => {
      const code = decodeImageCode('ISCC:EEA4GQZQTY6J5DTH');
      expect(code.bits).to.equal(64);
      expect(code.hash.toString('hex')).to.equal('c343309e3c9e8e67');
      expect(code.iscc).to.equal('ISCC:EEA4GQZQTY6J5DTH');
      expect(decodeImageCode('eea4gqzqty6j5dth').iscc).to.equal('ISCC:EEA4GQZQTY6J5DTH');
      const long = decodeImageCode('ISCC:EED4GQZQTY6J5DTHQ2DWCPDZHQOM6QZQTY6J5DTFZ2DWCPDZHQOMXDI');
      expect(long.bits).to.equal(256);
      expect(long.hash.toString('hex')).to.equal('c343309e3c9e8e678687613c793c1ccf43309e3c9e8e65ce87613c793c1ccb8d');
      expect(encodeImageCode(long.hash, 64)).to.equal('ISCC:EEA4GQZQTY6J5DTH');
    });
    it('refuses other ISCC units and damaged codes', () => {
      expect(() => decodeImageCode('ISCC:AAAZXZ6OU74YAZIM')).to.throw(/not an ISCC Image-Code/); // Meta-Code
      expect(() => decodeImageCode('ISCC:EAASKDNZNYGUUF5A')).to.throw(/not an ISCC Image-Code/); // Text-Code
      expect(() => decodeImageCode('ISCC:EEA4GQZQTY6J5D')).to.throw(/body/);
      expect(() => decodeImageCode('ISCC:EEA4GQZQTY6J5DT1')).to.throw(/base32/);
    });
    it('converts the 64-bit body to and from unsigned and signed (Postgres bigint) integers', () => {
      const hash = Buffer.from('c343309e3c9e8e67', 'hex');
      expect(hashToBigInt(hash)).to.equal(0xc343309e3c9e8e67n);
      expect(hashToInt64(hash)).to.equal(0xc343309e3c9e8e67n - (1n << 64n));
      expect(imageCodeToInt64String('ISCC:EEA4GQZQTY6J5DTH')).to.equal('-4376600956694000025');
      expect(int64ToImageCode('-4376600956694000025')).to.equal('ISCC:EEA4GQZQTY6J5DTH');
      expect(int64ToImageCode(0xc343309e3c9e8e67n)).to.equal('ISCC:EEA4GQZQTY6J5DTH');
      expect(int64ToHash(-1n).toString('hex')).to.equal('ffffffffffffffff');
      expect(hashToInt64(int64ToHash(-(1n << 63n)))).to.equal(-(1n << 63n));
      expect(hashToInt64(int64ToHash((1n << 63n) - 1n))).to.equal((1n << 63n) - 1n);
      expect(() => int64ToHash(1n << 64n)).to.throw(RangeError);
      expect(() => int64ToHash(-(1n << 63n) - 1n)).to.throw(RangeError);
    });
    it('measures Hamming distance on bodies, integers and ISCC strings alike', () => {
      const a = Buffer.from('c343309e3c9e8e67', 'hex');
      const b = Buffer.from('c343309e3c9e8e66', 'hex');
      expect(hammingDistance(a, a)).to.equal(0);
      expect(hammingDistance(a, b)).to.equal(1);
      expect(hammingDistance(Buffer.alloc(8), Buffer.alloc(8, 0xff))).to.equal(64);
      expect(hammingDistance(hashToInt64(a), hashToBigInt(b))).to.equal(1);
      expect(hammingDistance('ISCC:EEAYAAAAAAAAAAAA', 'ISCC:EEAQAAAAAAAAAAAA')).to.equal(1);
      expect(() => hammingDistance(a, Buffer.alloc(4))).to.throw(RangeError);
    });
  });

  describe('normalization (iscc-sdk image_normalize with Pillow arithmetic)', () => {
    // Expected values computed with Pillow 9.4 (the SDK's image_normalize: exif_transpose, alpha_composite over white,
    // trim, convert("L"), resize((32, 32), BICUBIC)) and iscc-core's soft_hash_image_v0, from the same files.
    const sha256 = (px: Uint8Array) => createHash('sha256').update(px).digest('hex');
    it('matches Pillow on a JPEG with EXIF orientation 6', async () => {
      const file = path.join(FIXTURES, 'scene-orient6.jpg');
      const px = await imagePixelsFromFile(file);
      expect(sha256(px)).to.equal('159fad6a7069814f4025b9c97db10c951be769c3e36ed2568f930eb95d3d3ba0');
      expect((await imageCodeFromFile(file)).iscc).to.equal('ISCC:EEAZUQ3HHTARZG43');
      expect((await imageCodeFromFile(file, { bits: 256 })).iscc).to.equal(
        'ISCC:EEDZUQ3HHTARZG43GWD4U6MDHE3DMQ3FHTARZG434ODMU6MDHE3DNTQ',
      );
    });
    it('matches Pillow on a PNG with transparent and half-transparent areas', async () => {
      const file = path.join(FIXTURES, 'scene-alpha.png');
      expect(sha256(await imagePixelsFromFile(file))).to.equal('6563ff546e157a8f3e6e5b2341bceccd9baa06d94838c6a6e2b8f54b9131820f');
      expect((await imageCodeFromFile(file)).iscc).to.equal('ISCC:EEA77QPAHTANBGY3');
      expect((await imageCodeFromFile(file, { bits: 256 })).iscc).to.equal(
        'ISCC:EED77QPAHTANBGY376DMA6EBXE3DNQ7AHTANBG43H6DMB6EBXE3DM7Y',
      );
    });
    it('resamples as Pillow does: a constant image stays constant, a 32x32 image is unchanged', () => {
      expect([...resampleBicubicL(new Uint8Array(100 * 70).fill(77), 100, 70, 32, 32)].every((v) => v === 77)).to.equal(true);
      const px = Uint8Array.from(IMG_SAMPLE_PIXELS);
      expect(resampleBicubicL(px, 32, 32, 32, 32)).to.deep.equal(px);
    });
  });

  describe('on images made with sharp', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'iscc-image-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('gives the same code for the same image decoded twice, from bytes or from a file', async () => {
      const jpeg = await sharp(scene(800, 600), raw(800, 600)).jpeg({ quality: 92 }).toBuffer();
      const file = path.join(dir, 'scene.jpg');
      writeFileSync(file, jpeg);
      const a = await imageCodeFromFile(jpeg);
      const b = await imageCodeFromFile(jpeg);
      const c = await imageCodeFromFile(file);
      expect(a.iscc).to.match(/^ISCC:EEA[A-Z2-7]{13}$/);
      expect(b).to.deep.equal(a);
      expect(c).to.deep.equal(a);
    });

    it('stays close for a re-encoded, resized or metadata-stripped copy, far for other images', async () => {
      const original = await sharp(scene(1200, 800), raw(1200, 800))
        .jpeg({ quality: 92 })
        .withExif({ IFD0: { Copyright: 'Newsroom', Artist: 'Photographer' } })
        .toBuffer();
      const code = await imageCodeFromFile(original);
      const copies = {
        q60: await sharp(original).jpeg({ quality: 60 }).toBuffer(),
        half: await sharp(original).resize(600).jpeg({ quality: 85 }).toBuffer(),
        quarter: await sharp(original).resize(300).jpeg({ quality: 85 }).toBuffer(),
        png: await sharp(original).png().toBuffer(),
        webp: await sharp(original).webp({ quality: 80 }).toBuffer(),
      };
      for (const [name, copy] of Object.entries(copies)) {
        const d = hammingDistance(code.hash, (await imageCodeFromFile(copy)).hash);
        expect(d, name).to.be.at.most(4);
      }
      // Stripping metadata does not touch the pixels: same code.
      const stripped = await sharp(original).jpeg({ quality: 92 }).toBuffer();
      expect((await sharp(stripped).metadata()).exif).to.equal(undefined);
      expect(hammingDistance(code.hash, (await imageCodeFromFile(stripped)).hash)).to.be.at.most(2);
      for (const variant of [1, 2, 3]) {
        const other = await sharp(scene(1200, 800, variant), raw(1200, 800)).jpeg({ quality: 92 }).toBuffer();
        const dOther = hammingDistance(code.hash, (await imageCodeFromFile(other)).hash);
        expect(dOther, `variant ${variant}`).to.be.at.least(16);
      }
    });

    it('applies the EXIF orientation: a rotated file with its orientation tag matches the upright image', async () => {
      const upright = await sharp(scene(640, 480), raw(640, 480)).png().toBuffer();
      const rotated = await sharp(upright).rotate(90).withMetadata({ orientation: 8 }).png().toBuffer();
      const up = await imagePixelsFromFile(upright);
      expect(await imagePixelsFromFile(rotated)).to.deep.equal(up);
      const ignored = await imageCodeFromFile(rotated, { exifTranspose: false });
      expect(hammingDistance(ignored.hash, (await imageCodeFromFile(upright)).hash)).to.be.at.least(16);
    });

    it('composites transparency over white, as the SDK does', async () => {
      const w = 320;
      const h = 240;
      const rgb = scene(w, h);
      const rgba = Buffer.alloc(w * h * 4);
      for (let i = 0; i < w * h; i++) {
        rgb.copy(rgba, i * 4, i * 3, i * 3 + 3);
        rgba[i * 4 + 3] = i % w < w / 4 ? 0 : 255; // left quarter fully transparent
      }
      const flattened = Buffer.from(rgb);
      for (let i = 0; i < w * h; i++) if (i % w < w / 4) flattened.fill(255, i * 3, i * 3 + 3);
      const a = await imagePixelsFromFile(await sharp(rgba, raw(w, h, 4)).png().toBuffer());
      const b = await imagePixelsFromFile(await sharp(flattened, raw(w, h)).png().toBuffer());
      expect(a).to.deep.equal(b);
    });

    it('keeps a flat border by default (as the SDK computes) and trims it on request', async () => {
      const inner = await sharp(scene(400, 300), raw(400, 300)).png().toBuffer();
      const framed = await sharp(inner).extend({ top: 50, bottom: 50, left: 80, right: 80, background: '#ffffff' }).png().toBuffer();
      const innerPx = await imagePixelsFromFile(inner);
      expect(await imagePixelsFromFile(framed)).to.not.deep.equal(innerPx);
      expect(await imagePixelsFromFile(framed, { trimBorder: true })).to.deep.equal(innerPx);
      expect(await imagePixelsFromFile(inner, { trimBorder: true })).to.deep.equal(innerPx);
    });

    it('hashes gray, palette and 16-bit images', async () => {
      const gray = await sharp(scene(300, 200), raw(300, 200)).grayscale().jpeg().toBuffer();
      const palette = await sharp(scene(300, 200), raw(300, 200)).png({ palette: true, colours: 32 }).toBuffer();
      const deep = await sharp(scene(300, 200), raw(300, 200)).toColourspace('rgb16').png().toBuffer();
      const eight = await sharp(scene(300, 200), raw(300, 200)).png().toBuffer();
      for (const file of [gray, palette, deep]) expect((await imageCodeFromFile(file)).iscc).to.match(/^ISCC:EEA/);
      expect(await imagePixelsFromFile(deep)).to.deep.equal(await imagePixelsFromFile(eight));
    });

    it('refuses images over the pixel limit and files that are not images', async () => {
      const big = await sharp(scene(400, 300), raw(400, 300)).png().toBuffer();
      let err: unknown;
      try {
        await imageCodeFromFile(big, { maxPixels: 100_000 });
      } catch (e) {
        err = e;
      }
      expect(String(err)).to.match(/pixel limit/i);
      err = undefined;
      try {
        await imageCodeFromFile(Buffer.from('not an image'));
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(Error);
    });
  });

  describe('fast mode (a JPEG decoded at reduced scale in the DCT domain)', () => {
    const jpegOf = (width: number, height: number, variant = 0) => sharp(scene(width, height, variant), raw(width, height)).jpeg({ quality: 90 }).toBuffer();

    it('asks libjpeg for the largest scale that keeps REDUCED_DECODE_MIN_EDGE pixels, and none for small images', () => {
      expect(reducedJpegSize(4000, 3000)).to.deep.equal({ width: 800, height: 600, factor: 4 });
      expect(reducedJpegSize(6000, 4000)).to.deep.equal({ width: 666, height: 444, factor: 8 });
      expect(reducedJpegSize(1600, 1067)).to.deep.equal({ width: 533, height: 355, factor: 2 });
      expect(reducedJpegSize(1200, 800)).to.equal(undefined);
      // A panorama keeps at least 32 pixels on its short side (and sharp's rounding within the factor it is given).
      expect(reducedJpegSize(20000, 100)).to.deep.equal({ width: 6666, height: 33, factor: 2 });
    });

    it('decodes a large JPEG at reduced scale (upright), and other images whole', async () => {
      const big = await jpegOf(3000, 2000);
      const fast = await decodeForFingerprint(big, { mode: 'fast' });
      expect({ width: fast.width, height: fast.height, reduced: fast.reduced }).to.deep.equal({ width: 600, height: 400, reduced: true });
      expect(Math.max(fast.width, fast.height)).to.be.at.least(REDUCED_DECODE_MIN_EDGE);
      const exact = await decodeForFingerprint(big, { mode: 'exact' });
      expect({ width: exact.width, height: exact.height, reduced: exact.reduced }).to.deep.equal({ width: 3000, height: 2000, reduced: false });
      // EXIF orientation 6: the reduced decode is upright, as the exact one.
      const rotated = await sharp(scene(3000, 2000), raw(3000, 2000)).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
      const upright = await decodeForFingerprint(rotated, { mode: 'fast' });
      expect({ width: upright.width, height: upright.height }).to.deep.equal({ width: 400, height: 600 });
      const png = await sharp(scene(2000, 1500), raw(2000, 1500)).png({ compressionLevel: 1 }).toBuffer();
      expect((await decodeForFingerprint(png, { mode: 'fast' })).reduced).to.equal(false);
    });

    it('agrees with the exact code within 4 bits on JPEGs of several sizes, scenes and orientations, and is exact otherwise', async () => {
      const distances: number[] = [];
      for (const [w, h] of [[4000, 3000], [2400, 1600], [1600, 1200]] as const) {
        for (const variant of [0, 1, 2]) {
          const jpeg = await jpegOf(w, h, variant);
          distances.push(hammingDistance((await imageCodeFromFile(jpeg, { mode: 'fast' })).hash, (await imageCodeFromFile(jpeg)).hash));
        }
      }
      const orient6 = readFileSync(path.join(FIXTURES, 'scene-orient6.jpg'));
      const bigOrient6 = await sharp(orient6).resize(1500, 2000).jpeg({ quality: 92 }).withMetadata({ orientation: 6 }).toBuffer();
      distances.push(hammingDistance((await imageCodeFromFile(bigOrient6, { mode: 'fast' })).hash, (await imageCodeFromFile(bigOrient6)).hash));
      expect(Math.max(...distances), JSON.stringify(distances)).to.be.at.most(4);
      // Not reduced (a PNG, a small JPEG): the same pixels as the exact path, so the same code.
      for (const file of [path.join(FIXTURES, 'scene-alpha.png'), path.join(FIXTURES, 'scene-orient6.jpg')]) {
        expect((await imageCodeFromFile(file, { mode: 'fast' })).iscc).to.equal((await imageCodeFromFile(file)).iscc);
      }
    });
  });
});
