import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { makeOpensslChain } from './openssl-chain.js';

/**
 * What the request fuzzer (request-fuzz.ts) builds hostile bodies for the sidecar and remote paths from: a small MP4
 * (its box soups and nested boxes are made from it), sidecar stores for it signed by c2pa-rs (its own, one listing
 * more exclusions than the check takes, one with subsets, data and nested paths), and JPEGs whose manifest is remote
 * at URLs the service must not or cannot fetch.
 */
export interface HostileMedia {
  bmff: Buffer;
  sidecars: Buffer[];
  remoteFiles: { name: string; type: string; bytes: Buffer }[];
  cleanup(): void;
}

/** URLs a remote manifest may name that the outbound guard refuses or that do not resolve. */
const REMOTE_URLS = ['https://127.0.0.1:1/manifest.c2pa', 'https://nonexistent.invalid/manifest.c2pa', 'https://localhost./m.c2pa', `https://example.invalid/${'a'.repeat(1500)}.c2pa`];

/** Made in `dir` (ffmpeg, the openssl CLI and c2pa-wasm): about a second. */
export async function makeHostileMedia(dir: string): Promise<HostileMedia> {
  const mp4Path = path.join(dir, 'hostile-base.mp4');
  execFileSync('ffmpeg', ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=0.3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', mp4Path]);
  const bmff = readFileSync(mp4Path);
  const jpeg = readFileSync(path.join(import.meta.dirname, '../fixtures/small.jpg'));
  const chain = await makeOpensslChain({ cn: 'Hostile Sidecars' });
  const signer = () => coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
  const { thumbnail: _none, ...definition } = buildManifestDefinition({ title: 'hostile', creator: 'Fuzz' }, { sourceHasManifest: false });
  const detached = async (type: string, file: Buffer, prepare: (builder: { addAssertion(label: string, data: unknown): void; setRemoteUrl(url: string): void }) => void) => {
    const builder = c2paWasm().WasmBuilder.fromJson(JSON.stringify({ ...definition, format: type }), JSON.stringify({ verify: { verify_after_sign: false, remote_manifest_fetch: false } }));
    try {
      builder.setNoEmbed(true);
      prepare(builder);
      return (await builder.signAndGetManifestBytes(signer(), [], type, new BytesBlob(new Uint8Array(file), type))) as { asset: Uint8Array; manifest: Uint8Array };
    } finally {
      builder.free();
    }
  };
  const c2paUuid = [...Buffer.from('d8fec3d61b0e483c92975828877ec481', 'hex')];
  const bmffHash = (exclusions: unknown[]) => (builder: { addAssertion(label: string, data: unknown): void }) =>
    builder.addAssertion('c2pa.hash.bmff.v3', { alg: 'sha256', hash: Array.from({ length: 32 }, (_, i) => i), exclusions, name: 'jumbf manifest' });
  try {
    const own = (await detached('video/mp4', bmff, () => undefined)).manifest;
    const many = (await detached('video/mp4', bmff, bmffHash([{ xpath: '/uuid', data: [{ offset: 8, value: c2paUuid }] }, ...Array.from({ length: 1_500 }, () => ({ xpath: '/free' }))]))).manifest;
    const odd = (await detached('video/mp4', bmff, bmffHash([
      { xpath: '/moov/trak/mdia/minf/stbl/stsd', subset: [{ offset: 0, length: 0 }, { offset: 4, length: 1 }], version: 0, flags: [0, 0, 0], exact: false },
      { xpath: '/mdat', subset: [{ offset: 8, length: 3 }, { offset: 99_999_999, length: 1 }] },
      { xpath: '/udta/meta', data: [{ offset: 0, value: [0, 0, 0] }], length: 12 },
      { xpath: '', data: [] },
    ]))).manifest;
    const remoteFiles = [];
    for (const [i, url] of REMOTE_URLS.entries()) {
      const { asset } = await detached('image/jpeg', jpeg, (builder) => builder.setRemoteUrl(url));
      remoteFiles.push({ name: `remote-${i}.jpg`, type: 'image/jpeg', bytes: Buffer.from(asset) });
    }
    return { bmff, sidecars: [Buffer.from(own), Buffer.from(many), Buffer.from(odd)], remoteFiles, cleanup: () => rmSync(chain.dir, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(chain.dir, { recursive: true, force: true });
    throw err;
  }
}
