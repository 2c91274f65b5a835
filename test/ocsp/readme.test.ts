/** ocsp/README.md shows code that exists: its example's imports, the responder methods it calls, the files it lists. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { OcspResponder } from '../../ocsp/responder.js';

const OCSP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ocsp');
const readme = readFileSync(path.join(OCSP_DIR, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('ocsp/README.md', function () {
  it('has a code example whose imports are exported by the modules it names', async function () {
    expect(examples).to.have.length.greaterThan(0);
    const imports = examples.flatMap((code) => [...code.matchAll(/^import \{ ([^}]+) \} from '\.\/([\w-]+\.js)';$/gm)]);
    expect(imports).to.have.length.greaterThan(0);
    for (const [, names, file] of imports) {
      const module = (await import(path.join(OCSP_DIR, file!))) as Record<string, unknown>;
      for (const name of names!.split(',').map((n) => n.trim())) expect(module[name], `${name} from ${file}`).to.be.a('function');
    }
  });

  it('calls only methods the responder has', function () {
    const calls = examples.flatMap((code) => [...code.matchAll(/\bresponder\.(\w+)\(/g)].map((m) => m[1]!));
    expect(calls).to.include('invalidate');
    for (const method of calls) expect((OcspResponder.prototype as unknown as Record<string, unknown>)[method], method).to.be.a('function');
  });

  it('lists files that exist', function () {
    const listed = [...readme.matchAll(/^\| `([\w./-]+\.ts)` \|/gm)].map((m) => m[1]!);
    expect(listed).to.include.members(['source.ts', 'issuer-filter.ts', 'memory-cache.ts', 'store-source.ts', 'live-signer.ts', 'responder.ts', 'server.ts']);
    for (const file of listed) expect(existsSync(path.join(OCSP_DIR, file)), file).to.equal(true);
  });
});
