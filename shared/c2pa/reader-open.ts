import { C2paError, describeWasmError, wasmErrorKind } from './errors.js';
import type { SignableMimeType } from './media-type.js';
import { structureOnlySettings } from './settings.js';
import { c2paWasm } from './wasm.js';

/**
 * Opens c2pa-rs's reader on a file or a manifest store, telling apart a file without C2PA data, a manifest c2pa-rs
 * refuses with a status code, a remote manifest, and a file it cannot read.
 */

/** c2pa-rs errors that mean "this file has no C2PA data", not "the data is broken". */
const NO_MANIFEST_KINDS = new Set(['JumbfNotFound', 'ProvenanceMissing']);

export type Reader = Awaited<ReturnType<ReturnType<typeof c2paWasm>['WasmReader']['fromBytes']>>;

/** The media type of a detached C2PA manifest store (JUMBF). */
export const MANIFEST_STORE_TYPE = 'application/c2pa';

/**
 * c2pa-rs errors that are a verdict on the manifest, with the C2PA status code c2pa-rs's own validation gives it
 * (its test of no_alg.jpg expects algorithm.unsupported): the file is Invalid, not unreadable.
 */
const VERDICT_KINDS: Record<string, { code: string; explanation: string }> = {
  UnknownAlgorithm: { code: 'algorithm.unsupported', explanation: 'the signature names no algorithm, or one c2pa-rs does not support' },
  CoseSignatureAlgorithmNotSupported: { code: 'algorithm.unsupported', explanation: 'the COSE signature algorithm is not supported' },
};

/** c2pa-rs refused the manifest for a reason that is a status code (VERDICT_KINDS). */
export interface Refused {
  refused: { code: string; explanation: string };
}

/** The file's manifest is not in it but at a URL it names (XMP dcterms:provenance); c2pa-rs in WASM cannot fetch it. */
export class RemoteManifestError extends C2paError {
  constructor(readonly url: string) {
    super(`the manifest is remote, at ${url}`);
    this.name = 'RemoteManifestError';
  }
}

/** Opens a reader on bytes or a Blob (a FileBlob for a file on disk); undefined when the file has no manifest. */
export async function openReader(source: Uint8Array | Blob, mimeType: SignableMimeType | typeof MANIFEST_STORE_TYPE, settings: string): Promise<Reader | Refused | undefined> {
  const { WasmReader } = c2paWasm();
  try {
    return source instanceof Blob ? await WasmReader.fromBlob(mimeType, source, settings) : await WasmReader.fromBytes(mimeType, source, settings);
  } catch (err) {
    const kind = wasmErrorKind(err);
    if (kind && NO_MANIFEST_KINDS.has(kind)) return undefined;
    if (kind && VERDICT_KINDS[kind]) return { refused: VERDICT_KINDS[kind] };
    const remote = kind === 'RemoteManifestUrl' ? /RemoteManifestUrl\("(.*)"\)/s.exec(String(err))?.[1] : undefined;
    if (remote) throw new RemoteManifestError(remote);
    throw new C2paError(`c2pa-rs could not read the ${mimeType} file: ${describeWasmError(err)}`, { cause: err });
  }
}

export const isRefused = (opened: Reader | Refused | undefined): opened is Refused => opened !== undefined && 'refused' in opened;

/** A manifest as c2pa-rs's crJSON gives it: its label, its assertions by label, its claim's algorithm. */
export interface CrJsonManifest {
  label?: string;
  assertions?: Record<string, unknown>;
  claim?: { alg?: string };
  'claim.v2'?: { alg?: string };
}

/** The store's active manifest in crJSON, read by c2pa-rs (structure only, no validation); undefined without one. */
export async function activeCrJsonManifest(store: Uint8Array): Promise<CrJsonManifest | undefined> {
  const reader = await c2paWasm().WasmReader.fromBytes(MANIFEST_STORE_TYPE, store, structureOnlySettings());
  try {
    const label = reader.activeLabel();
    return (JSON.parse(reader.crJson()) as { manifests?: CrJsonManifest[] }).manifests?.find((m) => m.label === label);
  } finally {
    reader.free();
  }
}
