import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import { c2paWasm, c2paWasmMemoryBytes, FileBlob } from '../../shared/c2pa/wasm.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { makeSample } from './media.js';
const mode = process.argv[2];
const work = process.argv[3] ?? mkdtempSync(path.join(tmpdir(), 'rm-'));
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
if (mode === 'make') {
  const chain = await makeOpensslChain();
  const s = await makeSample(work, 'mp4', 256 * 2 ** 20);
  await signFile({ sourcePath: s.path, outputPath: path.join(work, 'signed.mp4'), mimeType: 'video/mp4', manifest: buildManifestDefinition({ title: 'x', creator: 'y' }, { sourceHasManifest: false }), key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
  (await import('node:fs')).writeFileSync(path.join(work, 'root.pem'), chain.pem.root);
  console.log(work);
} else {
  const { WasmReader } = c2paWasm();
  const t0 = performance.now();
  const blob = FileBlob.open(path.join(work, 'signed.mp4'), 'video/mp4');
  const r = await WasmReader.fromBlob('video/mp4', blob, trustSettings(readFileSync(path.join(work, 'root.pem'), 'utf8')));
  const json = JSON.parse(r.json());
  console.log('state', json.validation_state, 'ms', (performance.now() - t0).toFixed(0), 'peak MiB', hwm().toFixed(0), 'wasm MiB', (c2paWasmMemoryBytes() / 2 ** 20).toFixed(0));
}
