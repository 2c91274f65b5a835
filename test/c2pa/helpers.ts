import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { identityAssertion } from '../../shared/c2pa/cawg-identity.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import type { Timestamper } from '../../shared/tsa/client.js';
import type { OpensslPerson } from '../support/openssl-ca.js';
import type { OpensslChain } from '../support/openssl-chain.js';

const run = promisify(execFile);

export const fixture = (name: string) => readFile(new URL(`../fixtures/${name}`, import.meta.url)).then((b) => new Uint8Array(b));

/** photo.jpg signed by `claimSigner`'s leaf, naming `person` as its creator in a cawg.identity assertion (no timestamps). */
export async function signedAsPerson(claimSigner: OpensslChain, person: OpensslPerson): Promise<Uint8Array> {
  return signAsset({
    bytes: await fixture('photo.jpg'),
    mimeType: 'image/jpeg',
    manifest: buildManifestDefinition({ title: 'byline.jpg', creator: 'Jane Doe' }, { sourceHasManifest: false }),
    key: claimSigner.keys.leaf,
    chainDer: [claimSigner.der.leaf, claimSigner.der.subCa],
    identityAssertions: [identityAssertion({ key: person.key, chainDer: person.chainDer, roles: ['cawg.creator'] })],
  });
}

/**
 * A real RFC 3161 TSA: `openssl ts -reply` with the chain's TSA certificate (EKU timeStamping, critical,
 * issued by the sub-CA). The hook hashes the imprint input itself, as a client of a remote TSA would.
 */
export async function opensslTimestamper(chain: OpensslChain): Promise<Timestamper> {
  const config = path.join(chain.dir, 'ts.cnf');
  await writeFile(config, [
    '[tsa]',
    'default_tsa = tsa1',
    '[tsa1]',
    `serial = ${path.join(chain.dir, 'tsaserial')}`,
    `signer_cert = ${chain.files.tsa}`,
    `certs = ${chain.files.subCa}`,
    `signer_key = ${path.join(chain.dir, 'vault', 'tsa.pem')}`,
    'signer_digest = sha384',
    'default_policy = 1.2.3.4.1',
    'digests = sha256, sha384, sha512',
    'accuracy = secs:1',
    'ess_cert_id_alg = sha256',
    '',
  ].join('\n'));
  await writeFile(path.join(chain.dir, 'tsaserial'), '01\n');
  return async (imprintInput) => {
    const id = randomUUID();
    const query = path.join(chain.dir, `${id}.tsq`);
    const token = path.join(chain.dir, `${id}.tst`);
    const digest = createHash('sha256').update(imprintInput).digest('hex');
    await run('openssl', ['ts', '-query', '-digest', digest, '-sha256', '-cert', '-out', query]);
    await run('openssl', ['ts', '-reply', '-config', config, '-queryfile', query, '-token_out', '-out', token]);
    return new Uint8Array(await readFile(token));
  };
}

/** Flips one bit of the byte `fromEnd` bytes before the end (image data, well after the manifest). */
export function flipByte(bytes: Uint8Array, fromEnd = 100): Uint8Array {
  const copy = bytes.slice();
  copy[copy.length - fromEnd] ^= 0x01;
  return copy;
}
