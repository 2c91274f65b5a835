/**
 * The CRL writer (shared/pki/crl.ts writes the entries with der.ts, not asn1-schema objects) read back by two
 * independent decoders: asn1-schema (parseCrl) and openssl. Edge cases of the encoding: UTCTime / GeneralizedTime
 * at 2049/2050 and the ends of the allowed range, sign octets, 20-octet serials, non-canonical serial input, every
 * reason; and a large CRL in serial order.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { CRL_REASON_NAMES, createCrl, parseCrl, type CrlReason, type RevokedEntry } from '../../shared/pki/crl.js';
import { encodeTime } from '../../shared/pki/der.js';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { issueTestChain, openssl, tempDir, type TestChain } from './helpers.js';

const REASONS = CRL_REASON_NAMES.filter((r) => r !== 'removeFromCRL');
const byValue = (a: RevokedEntry, b: RevokedEntry) => {
  const x = BigInt(`0x${a.serialHex}`);
  const y = BigInt(`0x${b.serialHex}`);
  return x < y ? -1 : x > y ? 1 : 0;
};

describe('pki/crl: entry encoding read back by asn1-schema and openssl', () => {
  const tmp = tempDir();
  let chain: TestChain;

  before(async () => {
    chain = await issueTestChain(tmp.dir);
  });
  after(() => tmp.cleanup());

  it('encodes X.509 Time as UTCTime through 2049 and GeneralizedTime from 2050 (and before 1950), whole seconds', () => {
    const text = (iso: string) => Buffer.from(encodeTime(new Date(iso))).toString('latin1');
    expect(text('1950-01-01T00:00:00.999Z')).to.equal('\x17\x0d500101000000Z');
    expect(text('2049-12-31T23:59:59Z')).to.equal('\x17\x0d491231235959Z');
    expect(text('2050-01-01T00:00:00Z')).to.equal('\x18\x0f20500101000000Z');
    expect(text('1949-12-31T23:59:59Z')).to.equal('\x18\x0f19491231235959Z');
    expect(text('9999-12-31T23:59:59Z')).to.equal('\x18\x0f99991231235959Z');
  });

  it('edge-case entries come back exactly (parseCrl) and openssl verifies the CRL', async () => {
    const times = ['1950-01-01T00:00:00Z', '2049-12-31T23:59:59Z', '2050-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-03-04T05:06:07.890Z'];
    const serials = ['01', '7f', '80', 'ff', '00fe', 'FFFF', '00:7f:01', '7f'.padEnd(40, 'e'), '01'.padEnd(40, '0'), randomBytes(16).toString('hex')];
    const revoked: RevokedEntry[] = serials.map((serialHex, i) => ({
      serialHex,
      revokedAt: new Date(times[i % times.length]!),
      reason: REASONS[i % REASONS.length]!,
    }));
    const crl = await createCrl({ issuerCertificateDer: chain.subCa.der, issuerKey: chain.keys.subCa, crlNumber: 3, revoked });
    const facts = parseCrl(crl.der);
    const expected = revoked
      .map((e) => ({ serialHex: normalizeSerialHex(e.serialHex), revokedAt: new Date(Math.floor(e.revokedAt.getTime() / 1000) * 1000), reason: e.reason }))
      .sort(byValue);
    expect(facts.revoked).to.deep.equal(expected);

    chain.write('edge.crl', crl.der);
    const verified = await openssl(['crl', '-inform', 'DER', '-in', 'edge.crl', '-CAfile', 'sub-ca.pem', '-noout', '-verify'], tmp.dir);
    expect(verified.stdout + verified.stderr).to.contain('verify OK');
    const text = await openssl(['crl', '-inform', 'DER', '-in', 'edge.crl', '-noout', '-text'], tmp.dir);
    expect(text.stdout.match(/Serial Number:/g)).to.have.length(serials.length);
    expect(text.stdout).to.contain('Dec 31 23:59:59 9999 GMT');
    expect(text.stdout).to.contain('Jan  1 00:00:00 1950 GMT');
  });

  it('a CRL of 20,000 entries lists each once, in serial order, with its time and reason', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000;
    const revoked: RevokedEntry[] = Array.from({ length: 20_000 }, (_, i) => ({
      serialHex: randomBytes(16).toString('hex'),
      revokedAt: new Date(now - i * 61_000),
      reason: REASONS[i % REASONS.length] as CrlReason,
    }));
    const crl = await createCrl({ issuerCertificateDer: chain.subCa.der, issuerKey: chain.keys.subCa, crlNumber: 4, revoked });
    expect(crl.revokedCount).to.equal(20_000);
    const facts = parseCrl(crl.der);
    expect(facts.revoked).to.deep.equal(revoked.map((e) => ({ ...e, serialHex: normalizeSerialHex(e.serialHex) })).sort(byValue));
    chain.write('big.crl', crl.der);
    const verified = await openssl(['crl', '-inform', 'DER', '-in', 'big.crl', '-CAfile', 'sub-ca.pem', '-noout', '-verify'], tmp.dir);
    expect(verified.stdout + verified.stderr).to.contain('verify OK');
  });
});
