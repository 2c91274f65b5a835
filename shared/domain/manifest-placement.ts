/**
 * Where a signed file's manifest store goes: `embedded` in the file, or `remote`: kept in the service's manifest
 * repository (GET /v1/manifests/{id}) and named by the file's XMP reference and its download's Link header.
 */
export const MANIFEST_PLACEMENTS = ['embedded', 'remote'] as const;
export type ManifestPlacement = (typeof MANIFEST_PLACEMENTS)[number];
