import { readAt, readExactly, type Walk } from '../byte-walk.js';
import { corrupt, MediaRejectedError } from '../errors.js';

/** SVG is text that c2pa-rs parses whole: files over this size are refused. */
export const SVG_MAX_BYTES = 16 * 1024 * 1024;
/** How much of the start is looked at to find the root element. */
const SNIFF_BYTES = 64 * 1024;

const BOM = '\uFEFF';
const ROOT = /^<(?:[A-Za-z_][\w.-]*:)?svg[\s/>]/;

/** Skips a DOCTYPE declaration (with its internal subset) starting at `at`; returns the index after it, or -1. */
function skipDoctype(text: string, at: number): number {
  let depth = 0;
  let quote = '';
  for (let i = at + 9; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth += 1;
    else if (c === ']') depth -= 1;
    else if (c === '>' && depth <= 0) return i + 1;
  }
  return -1;
}

/** The index of the root element's "<" after the prolog (XML declaration, comments, PIs, DOCTYPE), or -1. */
function rootStart(text: string): number {
  let pos = text.startsWith(BOM) ? 1 : 0;
  for (;;) {
    while (pos < text.length && /\s/.test(text[pos]!)) pos += 1;
    if (text.startsWith('<?', pos)) {
      const end = text.indexOf('?>', pos + 2);
      if (end < 0) return -1;
      pos = end + 2;
    } else if (text.startsWith('<!--', pos)) {
      const end = text.indexOf('-->', pos + 4);
      if (end < 0) return -1;
      pos = end + 3;
    } else if (text.startsWith('<!DOCTYPE', pos)) {
      pos = skipDoctype(text, pos);
      if (pos < 0) return -1;
    } else {
      return text.startsWith('<', pos) ? pos : -1;
    }
  }
}

/** Whether the file starts as an SVG document: UTF-8 text whose root element is <svg>. */
export function* looksLikeSvg(size: number): Walk<boolean> {
  const head = yield* readAt(0, Math.min(size, SNIFF_BYTES));
  if (head.includes(0)) return false; // binary, or UTF-16
  const text = head.toString('latin1');
  const root = rootStart(text);
  return root >= 0 && ROOT.test(text.slice(root, root + 300));
}

const NAME = /[A-Za-z_:][\w.:\u00b7-\uffff-]*/y;
const ATTRIBUTE = /\s*([^\s=/>"']+)\s*=\s*("[^"]*"|'[^']*')/y;

/**
 * SVG (at most SVG_MAX_BYTES: the registry refuses larger files before this runs): valid UTF-8, and well-formed as far
 * as the tags go: one root element <svg>, start and end tags that match, quoted attributes, comments / CDATA / PIs closed, no text outside the root, no entity
 * declarations (the DOCTYPE may not define entities).
 */
export function* checkSvg(size: number): Walk<void> {
  const bytes = yield* readExactly(0, size, 'the SVG');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw corrupt('the SVG is not valid UTF-8 text');
  }
  const stack: string[] = [];
  let root: string | undefined;
  let pos = text.startsWith(BOM) ? 1 : 0;
  const closed = (marker: string, from: number, what: string) => {
    const end = text.indexOf(marker, from);
    if (end < 0) throw corrupt(`the SVG is truncated (an unclosed ${what})`);
    return end + marker.length;
  };
  while (pos < text.length) {
    const lt = text.indexOf('<', pos);
    const outside = stack.length === 0;
    if (outside && text.slice(pos, lt < 0 ? text.length : lt).trim() !== '') throw corrupt('the SVG has text outside its root element');
    if (lt < 0) break;
    if (text.startsWith('<!--', lt)) pos = closed('-->', lt + 4, 'comment');
    else if (text.startsWith('<?', lt)) pos = closed('?>', lt + 2, 'processing instruction');
    else if (text.startsWith('<![CDATA[', lt)) {
      if (outside) throw corrupt('the SVG has CDATA outside its root element');
      pos = closed(']]>', lt + 9, 'CDATA section');
    } else if (text.startsWith('<!DOCTYPE', lt)) {
      if (root !== undefined) throw corrupt('the SVG has a DOCTYPE after its root element');
      const end = skipDoctype(text, lt);
      if (end < 0) throw corrupt('the SVG is truncated (an unclosed DOCTYPE)');
      if (text.slice(lt, end).includes('<!ENTITY')) throw new MediaRejectedError('unsupported', 'SVG files that declare XML entities are not accepted');
      pos = end;
    } else if (text.startsWith('</', lt)) {
      NAME.lastIndex = lt + 2;
      const name = NAME.exec(text)?.[0];
      const gt = name === undefined ? -1 : text.indexOf('>', lt + 2 + name.length);
      if (name === undefined || gt < 0 || text.slice(lt + 2 + name.length, gt).trim() !== '') throw corrupt(`the SVG has a damaged end tag at character ${lt}`);
      const open = stack.pop();
      if (open !== name) throw corrupt(`the SVG's </${name}> does not close <${open ?? '(nothing)'}>`);
      pos = gt + 1;
    } else {
      NAME.lastIndex = lt + 1;
      const name = NAME.exec(text)?.[0];
      if (name === undefined) throw corrupt(`the SVG has a damaged tag at character ${lt}`);
      if (outside) {
        if (root !== undefined) throw corrupt('the SVG has more than one root element');
        if (name !== 'svg' && !name.endsWith(':svg')) throw corrupt(`the SVG's root element is <${name}>, not <svg>`);
        root = name;
      }
      let at = lt + 1 + name.length;
      for (;;) {
        ATTRIBUTE.lastIndex = at;
        const attribute = ATTRIBUTE.exec(text);
        if (attribute) {
          at = ATTRIBUTE.lastIndex;
          continue;
        }
        while (at < text.length && /\s/.test(text[at]!)) at += 1;
        if (text.startsWith('/>', at)) {
          pos = at + 2;
          break;
        }
        if (text[at] === '>') {
          stack.push(name);
          pos = at + 1;
          break;
        }
        if (at >= text.length) throw corrupt(`the SVG is truncated (inside <${name}>)`);
        throw corrupt(`the SVG has a damaged attribute in <${name}> at character ${at}`);
      }
    }
  }
  if (root === undefined) throw corrupt('the SVG has no root element');
  if (stack.length > 0) throw corrupt(`the SVG is truncated (<${stack[stack.length - 1]}> is never closed)`);
}
