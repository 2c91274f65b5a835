/**
 * HTTP `Link` headers (RFC 8288) as C2PA 2.2 §15.5.3.2 uses them: `Link: <url>; rel="c2pa-manifest"` says where a
 * server keeps the manifest store of the file it answers with. Validators look there before the XMP reference.
 */

/** The first link with relation `rel` (case-insensitive; `rel` may list several), resolved against `base`; else undefined. */
export function linkWithRelation(header: string | undefined, rel: string, base: string): string | undefined {
  if (!header) return undefined;
  // Links are separated by commas outside <...> and quoted strings.
  for (const m of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"[^"]*"|[^;,\s]*))?)*)/g)) {
    const params = m[2] ?? '';
    const rels = [...params.matchAll(/;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]*))/gi)].flatMap((r) => (r[1] ?? r[2] ?? '').toLowerCase().split(/\s+/));
    if (!rels.includes(rel.toLowerCase())) continue;
    try {
      return new URL(m[1]!, base).href;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
