import { createHash, type Hash } from 'node:crypto';
import type { OutputBox } from './bmff-layout.js';
import { C2PA_UUID } from './bmff-walk.js';

/**
 * c2pa.hash.bmff.v3 computed over a file as it is written, one chunk after the other, from its planned top level
 * (bmff-layout.ts): what c2pa-rs's hash_stream_by_alg gives for the default exclusions, which leave out whole top-level
 * boxes only. Each top-level box the hash covers contributes its offset (64-bit big-endian) and then its bytes; the
 * excluded ones (ftyp, the C2PA box, free, skip, mfra) contribute nothing. The exclusions are the ones c2pa-wasm
 * writes itself (checked: the same list, in the same order, with the same name).
 */

export const BMFF_HASH_LABEL = 'c2pa.hash.bmff.v3';

/** c2pa-rs's default exclusions for a v3 BMFF hash: C2PA `uuid` boxes (by their extended type), ftyp, mfra, free, skip. */
export const DEFAULT_BMFF_EXCLUSIONS = [
  { xpath: '/uuid', data: [{ offset: 8, value: [...C2PA_UUID] }] },
  { xpath: '/ftyp' },
  { xpath: '/mfra' },
  { xpath: '/free' },
  { xpath: '/skip' },
];

/** The assertion's data as c2pa-rs's builder takes it (byte strings as arrays of numbers). */
export function bmffHashAssertion(digest: Uint8Array): Record<string, unknown> {
  return { exclusions: DEFAULT_BMFF_EXCLUSIONS, alg: 'sha256', hash: [...digest], name: 'jumbf manifest' };
}

/** The digest length of the assertion's algorithm: what a placeholder assertion carries to have the final one's size. */
export const BMFF_HASH_BYTES = 32;

export class BmffStreamHash {
  readonly #hash: Hash = createHash('sha256');
  readonly #boxes: readonly OutputBox[];
  #box = 0;
  #position = 0;

  /** `boxes`: the output's top level, in order, covering it without gaps. */
  constructor(boxes: readonly OutputBox[]) {
    let end = 0;
    for (const box of boxes) {
      if (box.offset !== end || box.size <= 0) throw new RangeError(`the planned boxes leave a gap or overlap at ${end}`);
      end += box.size;
    }
    this.#boxes = boxes;
  }

  /** The next bytes of the output. */
  update(chunk: Uint8Array): void {
    let done = 0;
    while (done < chunk.byteLength) {
      const box = this.#boxes[this.#box];
      if (!box) throw new RangeError('more bytes than the planned boxes hold');
      if (box.hashed && this.#position === box.offset) {
        const offset = Buffer.alloc(8);
        offset.writeBigUInt64BE(BigInt(box.offset));
        this.#hash.update(offset);
      }
      const take = Math.min(chunk.byteLength - done, box.offset + box.size - this.#position);
      if (box.hashed) this.#hash.update(chunk.subarray(done, done + take));
      done += take;
      this.#position += take;
      if (this.#position === box.offset + box.size) this.#box += 1;
    }
  }

  /** The digest, once every planned byte went through update. */
  digest(): Buffer {
    if (this.#box !== this.#boxes.length) throw new RangeError(`the output ended at ${this.#position}, before its planned end`);
    return this.#hash.digest();
  }
}
