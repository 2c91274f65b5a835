/**
 * What the hard-binding tests of detached manifests (bmff-hash, box-hash) share: an OpenSSL chain, c2pa-rs signing a
 * file as a sidecar (no_embed) or embedded, our reading of a file with its sidecar, and c2pa-rs's own verdict on an
 * embedded file's binding (the judge our checks must agree with).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readDetachedManifest } from '../../shared/c2pa/read-asset.js';
import type { VerificationReport } from '../../shared/c2pa/verification-report.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { BytesBlob, c2paWasm, type C2paWasm } from '../../shared/c2pa/wasm.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

type WasmBuilder = C2paWasm['WasmBuilder']['prototype'];

/** c2pa-rs's verdict on an embedded file's binding, with the assertion it holds (from crJSON) and its label. */
export interface C2paRsVerdict<A> {
  matches: boolean;
  assertion: A;
  label: string;
}

export interface BindingDesk {
  chain: OpensslChain;
  rootPem: string;
  /** c2pa-rs's sidecar for the file: no_embed, so the asset it hands back is the file itself (checked). */
  sidecarFor(type: SignableMimeType, file: Buffer, prepare?: (builder: WasmBuilder) => void): Promise<Uint8Array>;
  /** The file signed by c2pa-rs with the manifest embedded; `settings`: more of c2pa-rs's settings for the builder. */
  embedded(type: SignableMimeType, file: Buffer, prepare?: (builder: WasmBuilder) => void, settings?: Record<string, unknown>): Promise<Buffer>;
  /** A file of the desk's temp directory holding `bytes`. */
  onDisk(bytes: Buffer): string;
  /** Our reading of the file with its sidecar (readDetachedManifest), the chain's root the anchor. */
  readWith(file: Buffer, sidecar: Uint8Array): Promise<VerificationReport>;
  /**
   * c2pa-rs's verdict on the binding whose label starts with `labelPrefix` (status codes assertion.<stem>.match /
   * .mismatch); `unreadable` when c2pa-rs refuses the file outright (InvalidAsset: its walk fails on the same file).
   */
  c2paRsVerdict<A>(type: SignableMimeType, file: Buffer, labelPrefix: string, stem: string): Promise<C2paRsVerdict<A> | 'unreadable'>;
  /** c2pa-rs's verdict on a file it signed, as signed (its assertion is the one every tampered copy carries). */
  readable<A>(type: SignableMimeType, file: Buffer, labelPrefix: string, stem: string): Promise<C2paRsVerdict<A>>;
  close(): void;
}

/** `title`: the manifests' title stem ("clip" gives clip.mp4); `cn`: the chain's name. */
export async function openBindingDesk(options: { cn: string; creator: string; title: string }): Promise<BindingDesk> {
  const chain = await makeOpensslChain({ cn: options.cn });
  const rootPem = readFileSync(chain.files.root, 'utf8');
  const dir = mkdtempSync(path.join(tmpdir(), 'binding-desk-'));
  let written = 0;
  const signer = () => coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
  const builderFor = (type: SignableMimeType, prepare?: (builder: WasmBuilder) => void, settings: Record<string, unknown> = {}) => {
    const { thumbnail: _none, ...definition } = buildManifestDefinition({ title: `${options.title}.${type.split('/')[1]}`, creator: options.creator }, { sourceHasManifest: false });
    const builder = c2paWasm().WasmBuilder.fromJson(JSON.stringify({ ...definition, format: type }), JSON.stringify({ verify: { verify_after_sign: false, remote_manifest_fetch: false }, ...settings }));
    prepare?.(builder);
    return builder;
  };
  const onDisk = (bytes: Buffer): string => {
    written += 1;
    const file = path.join(dir, `asset-${written}`);
    writeFileSync(file, bytes);
    return file;
  };
  const c2paRsVerdict = async <A>(type: SignableMimeType, file: Buffer, labelPrefix: string, stem: string): Promise<C2paRsVerdict<A> | 'unreadable'> => {
    const reader = await c2paWasm()
      .WasmReader.fromBytes(type, new Uint8Array(file), trustSettings({ trustAnchorsPem: rootPem }))
      .catch((err: unknown) => {
        if (/InvalidAsset/.test(String(err))) return undefined;
        throw err;
      });
    if (!reader) return 'unreadable';
    try {
      const active = reader.activeLabel();
      const manifest = (JSON.parse(reader.crJson()) as { manifests: { label: string; assertions: Record<string, unknown> }[] }).manifests.find((m) => m.label === active)!;
      const label = Object.keys(manifest.assertions).find((k) => k.startsWith(labelPrefix))!;
      const codes = (JSON.parse(reader.json()) as { validation_results: { activeManifest: { success: { code: string }[]; failure: { code: string }[] } } }).validation_results.activeManifest;
      const match = codes.success.some((s) => s.code === `assertion.${stem}.match`);
      const mismatch = codes.failure.some((s) => s.code === `assertion.${stem}.mismatch`);
      expect(match !== mismatch, `c2pa-rs gives one verdict on ${type}`).to.equal(true);
      return { matches: match, assertion: manifest.assertions[label] as A, label };
    } finally {
      reader.free();
    }
  };
  return {
    chain,
    rootPem,
    async sidecarFor(type, file, prepare) {
      const builder = builderFor(type, prepare);
      try {
        builder.setNoEmbed(true);
        const signed = (await builder.signAndGetManifestBytes(signer(), [], type, new BytesBlob(new Uint8Array(file), type))) as { asset: Uint8Array; manifest: Uint8Array };
        expect(Buffer.from(signed.asset).equals(file), 'a no_embed asset is the file itself').to.equal(true);
        return signed.manifest;
      } finally {
        builder.free();
      }
    },
    async embedded(type, file, prepare, settings) {
      const builder = builderFor(type, prepare, settings);
      try {
        return Buffer.from(await builder.sign(signer(), [], type, new BytesBlob(new Uint8Array(file), type)));
      } finally {
        builder.free();
      }
    },
    onDisk,
    readWith: (file, sidecar) => readDetachedManifest(sidecar, onDisk(file), { trustAnchorsPem: rootPem }, { kind: 'sidecar', url: null, asset_checked: false }),
    c2paRsVerdict,
    async readable<A>(type: SignableMimeType, file: Buffer, labelPrefix: string, stem: string) {
      const verdict = await c2paRsVerdict<A>(type, file, labelPrefix, stem);
      if (verdict === 'unreadable') throw new Error('c2pa-rs cannot read the file it signed');
      return verdict;
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(chain.dir, { recursive: true, force: true });
    },
  };
}
