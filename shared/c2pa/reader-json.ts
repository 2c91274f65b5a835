/** The parts of c2pa-rs's Reader JSON that the reading modules use, and its status codes as lists. */
export interface StatusEntry {
  code: string;
  url?: string;
  explanation?: string;
}
export interface StatusCodes {
  success?: StatusEntry[];
  informational?: StatusEntry[];
  failure?: StatusEntry[];
}
export interface ReaderManifest {
  title?: string;
  claim_generator?: string;
  claim_version?: number;
  claim_generator_info?: { name?: string; version?: string }[];
  assertions?: { label: string; data?: unknown }[];
  thumbnail?: { format?: string; identifier?: string };
  ingredients?: {
    title?: string;
    relationship?: string;
    active_manifest?: string;
    label?: string;
    validation_results?: { activeManifest?: StatusCodes };
    /** C2PA 1.x readers: the ingredient's failures as one list. */
    validation_status?: StatusEntry[];
  }[];
  signature_info?: { issuer?: string; common_name?: string; cert_serial_number?: string; time?: string };
}
export interface ReaderJson {
  active_manifest?: string;
  manifests?: Record<string, ReaderManifest>;
  validation_results?: {
    activeManifest?: StatusCodes;
    ingredientDeltas?: { ingredientAssertionURI: string; validationDeltas?: StatusCodes }[];
  };
  /** Older form: failures only. */
  validation_status?: StatusEntry[];
  validation_state?: 'Invalid' | 'Valid' | 'Trusted';
}
/** A report's status codes, by kind, each once. */
export interface StatusLists {
  success: string[];
  informational: string[];
  failure: string[];
}

/** The codes of some status entries, each once. */
export const codesOf = (entries: StatusEntry[] | undefined) => [...new Set((entries ?? []).map((s) => s.code))];

/** The active manifest's status codes (or, in the older form, its failures only). */
export function statusOf(json: ReaderJson): StatusLists {
  const active = json.validation_results?.activeManifest;
  if (active) {
    return { success: codesOf(active.success), informational: codesOf(active.informational), failure: codesOf(active.failure) };
  }
  return { success: [], informational: [], failure: codesOf(json.validation_status) };
}
