/** dataHashMatches: the c2pa.hash.data check made for a detached manifest, on a file written here. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BINDING_LIMITS, BindingLimitExceeded } from '../../shared/c2pa/binding-limits.js';
import { dataHashMatches } from '../../shared/c2pa/data-hash.js';

describe('c2pa: dataHashMatches', function () {
  let dir: string;
  let file: string;
  const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
  // The digest of the file without bytes 1000..1999, as c2pa-rs writes it in crJSON.
  const digest = `b64'${createHash('sha256').update(Buffer.concat([bytes.subarray(0, 1000), bytes.subarray(2000)])).digest('base64')}'`;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'data-hash-'));
    file = path.join(dir, 'asset.bin');
    writeFileSync(file, bytes);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('matches with the exclusion left out; a changed byte outside it does not, one inside it does', async () => {
    const assertion = { alg: 'sha256', hash: digest, exclusions: [{ start: 1000, length: 1000 }] };
    expect(await dataHashMatches(file, assertion)).to.equal(true);
    const changed = Buffer.from(bytes);
    changed[1500] ^= 0xff;
    writeFileSync(file, changed);
    expect(await dataHashMatches(file, assertion)).to.equal(true);
    changed[150_000] ^= 0xff;
    writeFileSync(file, changed);
    expect(await dataHashMatches(file, assertion)).to.equal(false);
    writeFileSync(file, bytes);
  });

  it('an algorithm or digest it does not know: undefined; exclusions that are not byte ranges: a mismatch, never a throw', async () => {
    expect(await dataHashMatches(file, { alg: 'md5', hash: digest })).to.equal(undefined);
    expect(await dataHashMatches(file, { alg: 'constructor', hash: digest })).to.equal(undefined);
    expect(await dataHashMatches(file, { hash: 'not b64' })).to.equal(undefined);
    for (const exclusions of ['1000', { start: 1000, length: 1000 }, [{ start: -1, length: 5 }], [{ start: 1000 }], [null], [{ start: 1.5, length: 2 }], [{ start: '1000', length: 1000 }]]) {
      expect(await dataHashMatches(file, { hash: digest, exclusions } as never), JSON.stringify(exclusions)).to.equal(false);
    }
  });

  it('overlapping, touching and unsorted exclusions leave out their union', async () => {
    const exclusions = [{ start: 1500, length: 500 }, { start: 1000, length: 600 }, { start: 1200, length: 0 }, { start: 1000, length: 100 }];
    expect(await dataHashMatches(file, { hash: digest, exclusions })).to.equal(true);
    expect(await dataHashMatches(file, { hash: digest, exclusions: [{ start: 1000, length: 999 }] })).to.equal(false);
  });

  it(`more than ${BINDING_LIMITS.dataHashExclusions} exclusions throw BindingLimitExceeded (the assertion's fault); at the limit they are judged`, async () => {
    // 1000..1999 as one-byte exclusions, then more of them repeated up to the limit: the same bytes left out.
    const ones = Array.from({ length: BINDING_LIMITS.dataHashExclusions }, (_, i) => ({ start: 1000 + (i % 1000), length: 1 }));
    expect(await dataHashMatches(file, { hash: digest, exclusions: ones })).to.equal(true);
    const refused = await dataHashMatches(file, { hash: digest, exclusions: [...ones, { start: 0, length: 1 }] }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(BindingLimitExceeded);
    expect(refused).to.deep.include({ part: 'assertion', message: "the manifest's data hash lists 10,001 exclusions, more than the 10,000 checked" });
  });
});
