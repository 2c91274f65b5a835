/**
 * revocationOf: the service speaks for a signer's revocation only when the certificate is one it issued, judged by
 * serial AND issuer. Serials are unique per issuer only: a foreign certificate that shares a serial with one of the
 * service's is not_issued_by_service, never "good" or "revoked" on the strength of the serial alone.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { revocationOf } from '../../api/media/verification.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { insertCertificate, markCertificateRevoked } from '../../shared/db/repositories/certificates.js';
import { nameInCertificateOrder, readCertificate } from '../../shared/pki/certificate.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

describe('revocationOf: issuer and serial, not serial alone', function () {
  let db: TestDatabase;
  let partner: OpensslChain;
  let other: OpensslChain;

  before(async () => {
    [db, partner, other] = await Promise.all([createTestDatabase(), makeOpensslChain({ cn: 'Partner' }), makeOpensslChain({ cn: 'Other' })]);
  });
  after(async () => {
    await db?.drop();
    for (const c of [partner, other]) if (c) rmSync(c.dir, { recursive: true, force: true });
  });

  /** Records `der` in the certificates table under `serial`, as if the service had issued it. */
  const record = (der: Uint8Array, serial: string) => {
    const { facts } = readCertificate(der);
    return insertCertificate(db.knex, {
      serial,
      role: 'leaf',
      issuerId: null,
      keyName: 'leaf',
      subject: facts.subject,
      issuer: facts.issuer,
      notBefore: facts.notBefore,
      notAfter: facts.notAfter,
      der,
      fingerprintSha256: facts.fingerprintSha256,
    });
  };

  const signerOf = async (chain: OpensslChain) => {
    const signed = await signAsset({
      bytes: new Uint8Array(readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'))),
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'partner.jpg', creator: 'Partner Agency' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
    });
    return (await readAsset(signed, 'image/jpeg', { trustAnchorsPem: chain.pem.root })).signer;
  };

  it("matches a recorded certificate by serial and issuer (named as c2pa-rs reports it); another issuer's certificate under the same serial is not the signer's", async () => {
    const [partnerSigner, otherSigner] = await Promise.all([signerOf(partner), signerOf(other)]);
    const leaf = readCertificate(partner.der.leaf);
    expect(partnerSigner?.serial).to.equal(leaf.facts.serialHex);
    expect(partnerSigner?.issuer).to.equal(nameInCertificateOrder(leaf.issuerNameDer));
    expect(partnerSigner?.issuer).to.equal('C=US, O=Partner Org, CN=Partner subca');
    expect(await revocationOf(db.knex, partnerSigner)).to.deep.equal({ status: 'not_issued_by_service' });

    const own = await record(partner.der.leaf, leaf.facts.serialHex);
    expect(await revocationOf(db.knex, partnerSigner)).to.deep.equal({ status: 'good', checked_against: 'service_revocation_data' });
    const revokedAt = new Date('2026-01-02T03:04:05Z');
    await db.knex.transaction((trx) => markCertificateRevoked(trx, own.id, revokedAt, 'keyCompromise'));
    expect(await revocationOf(db.knex, partnerSigner)).to.deep.equal({
      status: 'revoked',
      revoked_at: revokedAt.toISOString(),
      reason: 'keyCompromise',
      checked_against: 'service_revocation_data',
    });

    // The service holds a certificate of another CA under the other signer's serial, revoked: not that signer's.
    const collision = await record(partner.der.tsa, otherSigner!.serial!);
    await db.knex.transaction((trx) => markCertificateRevoked(trx, collision.id, revokedAt, 'keyCompromise'));
    expect(await revocationOf(db.knex, otherSigner)).to.deep.equal({ status: 'not_issued_by_service' });
    expect(await revocationOf(db.knex, { serial: otherSigner!.serial, issuer: null })).to.deep.equal({ status: 'not_issued_by_service' });
    expect(await revocationOf(db.knex, null)).to.deep.equal({ status: 'no_signer' });
  });
});
