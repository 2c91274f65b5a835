/**
 * A sign sandbox's warm-up (shared/c2pa/warm-up.ts): one small MP4 of its own signed and checked through signFile,
 * with keys and certificates made in memory, before its first job.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect } from 'chai';
import { warmUpSigning } from '../../shared/c2pa/warm-up.js';

describe('c2pa: the sign sandbox warm-up', function () {
  this.timeout(60_000);
  const leftovers = () => readdirSync(tmpdir()).filter((name) => name.startsWith('sign-warm-up-'));

  it('signs and checks a small MP4 of its own, twice over, leaving no file behind', async () => {
    const before = leftovers();
    await warmUpSigning();
    await warmUpSigning();
    expect(leftovers()).to.deep.equal(before);
  });
});
