import path from 'node:path';
import type { Walk } from '../byte-walk.js';
import { epubPackage, xmlAttribute, zipEntryBytes } from './zip-entry.js';

/**
 * An EPUB's cover image, for its claim thumbnail: the package document's manifest item with the `cover-image`
 * property (EPUB 3), else the item its `<meta name="cover" content="...">` names (EPUB 2), when it is a JPEG, PNG, GIF
 * or WebP (an SVG cover is not rendered) inside the archive. Read with the entry bounds of zip-entry.ts, at most
 * COVER_BYTES; libvips decodes it afterwards under the thumbnail's own pixel limit.
 */

/** Largest cover image read (inflated). */
const COVER_BYTES = 16 * 1024 * 1024;
const COVER_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A start tag's attributes, their entities decoded. */
function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out.set(m[1]!, xmlAttribute(m[2] ?? m[3] ?? ''));
  return out;
}

/** The archive entry an href in the package document names (relative to it), or undefined when it leaves the archive. */
function entryName(packagePath: string, href: string): string | undefined {
  let relative: string;
  try {
    relative = decodeURIComponent(href.replace(/[?#].*$/, ''));
  } catch {
    return undefined;
  }
  if (!relative || relative.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(relative)) return undefined;
  const name = path.posix.normalize(path.posix.join(path.posix.dirname(packagePath), relative));
  return name.startsWith('../') || name === '..' ? undefined : name;
}

/** The cover image's bytes, or undefined when the EPUB names none this reads. */
export function* epubCover(size: number): Walk<Buffer | undefined> {
  const pkg = yield* epubPackage(size);
  if (!pkg) return undefined;
  const items = [...pkg.xml.matchAll(/<(?:[\w.-]+:)?item\b[^>]*>/g)].map((m) => attributes(m[0]));
  const coverId = [...pkg.xml.matchAll(/<(?:[\w.-]+:)?meta\b[^>]*>/g)].map((m) => attributes(m[0])).find((a) => a.get('name') === 'cover')?.get('content');
  const item = items.find((a) => (a.get('properties') ?? '').split(/\s+/).includes('cover-image')) ?? items.find((a) => coverId !== undefined && a.get('id') === coverId);
  const href = item?.get('href');
  if (!item || !href || !COVER_TYPES.has(item.get('media-type') ?? '')) return undefined;
  const name = entryName(pkg.path, href);
  return name === undefined ? undefined : yield* zipEntryBytes(size, name, COVER_BYTES);
}
