/** The module hooks of record-modules.mjs (they run on node's loader thread): each resolved file, once. */
import { appendFileSync } from 'node:fs';

let file;
const seen = new Set();

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.startsWith('file:') && !seen.has(resolved.url)) {
    seen.add(resolved.url);
    appendFileSync(file, `${process.pid} esm ${resolved.url}\n`);
  }
  return resolved;
}
