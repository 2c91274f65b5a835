import { defineFormat } from '../format-descriptor.js';
import { checkSvg, looksLikeSvg, SVG_MAX_BYTES } from '../walks/svg.js';

/** Not decoded to check its pixels: text, its structure walk is the check. */
export const svg = defineFormat({
  mimeType: 'image/svg+xml',
  extensions: ['svg'],
  kind: 'image',
  label: 'SVG image',
  notes: `UTF-8, at most ${SVG_MAX_BYTES / 1024 / 1024} MiB, root <svg>, tags balanced, quoted attributes, no entity declarations`,
  *sniff(_head, size) {
    return yield* looksLikeSvg(size);
  },
  check: checkSvg,
  maxBytes: SVG_MAX_BYTES,
});
