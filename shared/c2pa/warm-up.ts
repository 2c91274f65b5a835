import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { issueLeafCertificate, issueRootCa, issueSubCa } from '../pki/certificate-templates.js';
import { keyFromPrivate } from '../vault/local.js';
import { buildManifestDefinition } from './manifest-definition.js';
import { signFile } from './sign-asset.js';

/**
 * A sign process's first job pays for c2pa-rs's first signing and first validation (its WASM functions are compiled
 * at their first use) and for V8 compiling the streamed writer's JavaScript: the jobs after it do not. A sign sandbox
 * pays that before its first job instead (workers/sign-sandbox.ts): it signs a small MP4 of its own through the same
 * path (signFile: written, hashed, signed, embedded and checked), with keys and certificates made for it in memory and
 * dropped after.
 */

/** A box: its 32-bit size, type and payload. */
function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/** The smallest MP4 the streamed signer takes: an ftyp box and a few bytes of media. */
function smallMp4(): Buffer {
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1')), box('mdat', Buffer.alloc(4096, 0x5a))]);
}

/** Signs and checks one small MP4 (see above); rejects when that fails (the caller goes on, cold). */
export async function warmUpSigning(): Promise<void> {
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) };
  const key = (name: string) => keyFromPrivate(name, generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey);
  const [rootKey, subCaKey, leafKey] = [key('warm-up-root'), key('warm-up-sub-ca'), key('warm-up-leaf')];
  const root = await issueRootCa({ ...validity, subject: { commonName: 'Warm-up Root' }, key: rootKey });
  const crlUrl = 'http://localhost/crl';
  const subCa = await issueSubCa({ ...validity, crlUrl, subject: { commonName: 'Warm-up Issuing CA' }, subjectPublicKeySpki: subCaKey.publicKeySpki, issuer: { certificateDer: root.der, key: rootKey } });
  const leaf = await issueLeafCertificate({ ...validity, crlUrl, ocspUrl: 'http://localhost/ocsp', subject: { commonName: 'Warm-up', organization: 'Warm-up' }, subjectPublicKeySpki: leafKey.publicKeySpki, issuer: { certificateDer: subCa.der, key: subCaKey } });
  const dir = await mkdtemp(path.join(tmpdir(), 'sign-warm-up-'));
  try {
    const sourcePath = path.join(dir, 'source.mp4');
    await writeFile(sourcePath, smallMp4());
    await signFile({
      sourcePath,
      outputPath: path.join(dir, 'signed.mp4'),
      mimeType: 'video/mp4',
      manifest: buildManifestDefinition({ title: 'Warm-up', creator: 'Warm-up' }, { sourceHasManifest: false }),
      key: leafKey,
      chainDer: [leaf.der, subCa.der],
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
