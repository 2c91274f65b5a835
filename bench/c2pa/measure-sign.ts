/**
 * How long one signAsset / readAsset takes in-process (local vault key, no timestamp).
 * Run: npx tsx bench/c2pa/measure-sign.ts [iterations]. Not a test: timings are reported, never asserted.
 */
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { fixture } from '../../test/c2pa/helpers.js';

const iterations = Number(process.argv[2] ?? 30);
const chain = await makeOpensslChain();
const started = performance.now();
c2paWasm();
console.log(`WASM load (once per process): ${(performance.now() - started).toFixed(0)} ms`);

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1);
  return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, min ${s[0]!.toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;
};

for (const [name, mimeType] of [['photo.jpg', 'image/jpeg'], ['graphic.png', 'image/png']] as [string, SignableMimeType][]) {
  const bytes = await fixture(name);
  const manifest = buildManifestDefinition({ title: name, creator: 'Bench' }, { sourceHasManifest: false });
  const sign = () => signAsset({ bytes, mimeType, manifest, key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
  let t = performance.now();
  let signed = await sign();
  const first = performance.now() - t;
  const signTimes: number[] = [];
  const readTimes: number[] = [];
  for (let i = 0; i < iterations; i++) {
    t = performance.now();
    signed = await sign();
    signTimes.push(performance.now() - t);
    t = performance.now();
    await readAsset(signed, mimeType, { trustAnchorsPem: chain.pem.root });
    readTimes.push(performance.now() - t);
  }
  console.log(`${name} (${bytes.length} B -> ${signed.length} B): first sign ${first.toFixed(1)} ms`);
  console.log(`  signAsset x${iterations}: ${stats(signTimes)}`);
  console.log(`  readAsset x${iterations}: ${stats(readTimes)}`);
}
