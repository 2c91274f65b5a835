import type { ReaderJson, ReaderManifest, StatusEntry } from './reader-json.js';

/** Every failure code c2pa-rs reports for a file, with where it sits: the active manifest or an ingredient. */

export interface FailureDetail {
  code: string;
  explanation: string | null;
  /** 'manifest': the active manifest; 'ingredient': an ingredient's manifest (named by `ingredient`). */
  in: 'manifest' | 'ingredient';
  ingredient: string | null;
  /** The JUMBF URI c2pa-rs names (the assertion or signature at fault), when it names one. */
  url: string | null;
}

/** The failures of the active manifest and of its ingredients (found now, as deltas, or recorded when it was signed). */
export function failuresOf(json: ReaderJson, label: string | null, manifest: ReaderManifest | undefined): FailureDetail[] {
  const out = new Map<string, FailureDetail>();
  const add = (entries: StatusEntry[] | undefined, from: Pick<FailureDetail, 'in' | 'ingredient'>) => {
    for (const e of entries ?? []) {
      const detail = { code: e.code, explanation: e.explanation ?? null, ...from, url: e.url ?? null };
      out.set(`${detail.code}|${detail.in}|${detail.ingredient}|${detail.url}`, detail);
    }
  };
  const ingredients = manifest?.ingredients ?? [];
  const titleOf = (match: (i: (typeof ingredients)[number]) => boolean) => ingredients.find(match)?.title ?? null;
  const active = json.validation_results?.activeManifest;
  if (active) add(active.failure, { in: 'manifest', ingredient: null });
  else {
    // The older form lists every failure together: the URL tells whose manifest it is about.
    for (const e of json.validation_status ?? []) {
      const ownUrl = !e.url || !label || e.url.includes(`/${label}/`) || e.url.endsWith(`/${label}`);
      add([e], ownUrl ? { in: 'manifest', ingredient: null } : { in: 'ingredient', ingredient: titleOf((i) => !!i.active_manifest && !!e.url?.includes(i.active_manifest)) });
    }
  }
  for (const delta of json.validation_results?.ingredientDeltas ?? []) {
    const title = titleOf((i) => !!i.label && !!label && delta.ingredientAssertionURI.endsWith(`/${label}/c2pa.assertions/${i.label}`));
    add(delta.validationDeltas?.failure, { in: 'ingredient', ingredient: title });
  }
  for (const i of ingredients) {
    add(i.validation_results?.activeManifest?.failure ?? i.validation_status?.filter((e) => /mismatch|invalid|untrusted|missing|revoked|malformed|unsupported|inaccessible|error/i.test(e.code)), { in: 'ingredient', ingredient: i.title ?? null });
  }
  return [...out.values()];
}
