import { MAX_BMFF_BOXES } from '../media/walks/bmff.js';

/**
 * How much a detached hard-binding check (bmff-hash.ts, box-hash.ts, data-hash.ts) takes on: a sidecar and the file
 * it comes with are anyone's bytes, and past these the check stops, the verdict Invalid with the reason (the file or
 * the manifest is beyond what real ones hold, not the service at fault). Each is far above what signers write and
 * costs well under a second to check (bench/hostile/bindings.ts).
 */
export const BINDING_LIMITS = {
  /**
   * Boxes of a BMFF file up to 625 MiB, all levels as c2pa-rs walks them: the one limit of shared/media's (its reasons
   * there); a larger file may have one more per 64 KiB (maxBmffBoxes).
   */
  bmffBoxes: MAX_BMFF_BOXES,
  /** Exclusions of a c2pa.hash.bmff assertion: c2pa-rs writes 5 (/uuid, /ftyp, /mfra, /free, /skip). */
  bmffExclusions: 1_000,
  /**
   * Box checks the exclusions make: each exclusion against each box at its path, times one plus its data and subset
   * entries. c2pa-rs's 5 exclusions on a file at the box limit stay under 2 x bmffBoxes.
   */
  bmffExclusionChecks: 1_000_000,
  /**
   * Entries of a c2pa.hash.boxes assertion: one per box (JPEG segment, PNG chunk) at most, three in c2pa-rs's minimal
   * form. A 50 MB PNG in libpng's 8 KiB IDAT chunks has about 6,400.
   */
  boxHashEntries: 100_000,
  /** Boxes of the file's box map for a box hash: a JPEG's restart markers count one each (a few thousand in camera files). */
  boxMapBoxes: 1_000_000,
  /** Exclusions of a c2pa.hash.data assertion: c2pa-rs writes one (the manifest store's own place in the file). */
  dataHashExclusions: 10_000,
} as const;

/**
 * A check stopped at one of BINDING_LIMITS: `part` says whether the file (its boxes) or the manifest's assertion (its
 * exclusions or entries) is past it; the message says which limit, for the verdict's explanation.
 */
export class BindingLimitExceeded extends Error {
  constructor(
    readonly part: 'file' | 'assertion',
    message: string,
  ) {
    super(message);
    this.name = 'BindingLimitExceeded';
  }
}

/** "1,000,000": limits as the explanation says them. */
export const counted = (n: number) => n.toLocaleString('en-US');
