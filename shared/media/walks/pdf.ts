import { readAt, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

/** How much of a PDF's end is read for its trailer (`startxref`, `%%EOF`): writers put them in the last few hundred bytes. */
const TAIL_BYTES = 2048;

/** `%PDF-1.0` to `%PDF-2.0` at the very start. */
export function isPdfHeader(head: Buffer): boolean {
  return head.length >= 8 && head.toString('latin1', 0, 5) === '%PDF-';
}

/**
 * A PDF's frame: its header version, the `%%EOF` marker at its end (a file cut short has none), and a `startxref`
 * offset inside the file pointing at a cross-reference table (`xref`) or stream (`N G obj`), which is where every
 * reader, c2pa-rs's included, starts. Objects are not parsed: c2pa-rs judges the rest.
 */
export function* checkPdf(size: number): Walk<void> {
  const head = yield* readAt(0, 16);
  if (!/^%PDF-[12]\.\d/.test(head.toString('latin1'))) throw corrupt('the PDF header has no version (expected %PDF-1.x or %PDF-2.0)');
  const from = Math.max(0, size - TAIL_BYTES);
  const tail = (yield* readAt(from, size - from)).toString('latin1');
  if (!/%%EOF\s*$/.test(tail.slice(-64)) && !tail.includes('%%EOF')) throw corrupt('the PDF is cut short or damaged: no %%EOF marker at its end');
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail) ?? [...tail.matchAll(/startxref\s+(\d+)\s+%%EOF/g)].at(-1);
  if (!startxref) throw corrupt('the PDF has no startxref before its last %%EOF');
  const offset = Number(startxref[1]);
  if (offset >= size) throw corrupt(`the PDF's startxref (${offset}) points past the end of the file (${size} bytes)`);
  const at = (yield* readAt(offset, 32)).toString('latin1');
  if (!/^(?:xref|\d+\s+\d+\s+obj)/.test(at)) throw corrupt(`the PDF's startxref (${offset}) does not point at a cross-reference table or stream`);
}
