import { expect } from 'chai';
import {
  CRL_REASONS,
  CRL_REASON_CODES,
  CRL_REASON_NAMES,
  crlReasonCode,
  crlReasonFromCode,
  isCrlReason,
} from '../../shared/domain/crl-reasons.js';
import { PemError, derToPem, pemBlocks, pemToDer } from '../../shared/pki/pem.js';
import {
  SerialNumberError,
  integerBytesToSerialHex,
  normalizeSerialHex,
  randomSerial,
  serialHexToIntegerBytes,
} from '../../shared/pki/serial.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('pki/pem', () => {
  it('wraps DER at 64 characters with BEGIN/END lines and round-trips', () => {
    const der = new Uint8Array(200).map((_, i) => i);
    const pem = derToPem(der);
    const lines = pem.trimEnd().split('\n');
    expect(lines[0]).to.equal('-----BEGIN CERTIFICATE-----');
    expect(lines.at(-1)).to.equal('-----END CERTIFICATE-----');
    expect(lines.slice(1, -1).every((l) => l.length <= 64)).to.equal(true);
    expect(lines[1]!.length).to.equal(64);
    expect(pem.endsWith('\n')).to.equal(true);
    expect(hex(pemToDer(pem))).to.equal(hex(der));
  });

  it('takes the block with the requested label, ignores text around blocks, accepts CRLF', () => {
    const a = Uint8Array.of(1, 2, 3);
    const b = Uint8Array.of(4, 5, 6, 7);
    const text = `subject=CN=x\r\n${derToPem(a, 'X509 CRL').replace(/\n/g, '\r\n')}junk\n${derToPem(b)}`;
    expect(hex(pemToDer(text))).to.equal(hex(b));
    expect(hex(pemToDer(text, 'X509 CRL'))).to.equal(hex(a));
    expect(pemBlocks(text).map((x) => x.label)).to.deep.equal(['X509 CRL', 'CERTIFICATE']);
  });

  it('rejects missing blocks, mismatched labels and bad base64', () => {
    expect(() => pemToDer('nothing here')).to.throw(PemError);
    expect(() => pemToDer('-----BEGIN CERTIFICATE-----\nAQID\n-----END X509 CRL-----\n')).to.throw(PemError, /closed by/);
    expect(() => pemToDer('-----BEGIN CERTIFICATE-----\nA*ID\n-----END CERTIFICATE-----\n')).to.throw(PemError, /base64/);
    expect(() => derToPem(Uint8Array.of(1), 'bad-label')).to.throw(PemError);
  });
});

describe('pki/serial', () => {
  it('makes random positive 16-byte serials: first byte 0x01..0x7f, 32 lowercase hex characters', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const { bytes, hex: h } = randomSerial();
      expect(bytes.length).to.equal(16);
      expect(bytes[0]).to.be.within(1, 0x7f);
      expect(h).to.match(/^[0-9a-f]{32}$/);
      expect(normalizeSerialHex(h)).to.equal(h);
      expect(hex(serialHexToIntegerBytes(h))).to.equal(h); // no sign octet needed
      seen.add(h);
    }
    expect(seen.size).to.equal(500);
  });

  it('normalises hex: case, separators, leading zeros, even length', () => {
    expect(normalizeSerialHex('0A:BC')).to.equal('0abc');
    expect(normalizeSerialHex('000abc')).to.equal('0abc');
    expect(normalizeSerialHex('ABC')).to.equal('0abc');
    expect(normalizeSerialHex('00ff')).to.equal('ff');
    expect(() => normalizeSerialHex('00')).to.throw(SerialNumberError, /positive/);
    expect(() => normalizeSerialHex('xyz')).to.throw(SerialNumberError);
    expect(() => normalizeSerialHex('01'.repeat(21))).to.throw(SerialNumberError, /20 octets/);
    expect(normalizeSerialHex('7f'.repeat(20))).to.equal('7f'.repeat(20));
  });

  it('encodes DER INTEGER content with a sign octet only when the high bit is set, and decodes it back', () => {
    expect(hex(serialHexToIntegerBytes('ff01'))).to.equal('00ff01');
    expect(hex(serialHexToIntegerBytes('7f01'))).to.equal('7f01');
    expect(hex(serialHexToIntegerBytes('0001'))).to.equal('01');
    expect(integerBytesToSerialHex(Uint8Array.of(0, 0xff, 1))).to.equal('ff01');
    expect(integerBytesToSerialHex(Uint8Array.of(0x7f, 1))).to.equal('7f01');
    expect(integerBytesToSerialHex(Uint8Array.of(0xff))).to.equal('-01'); // negative: never equal to a positive
  });
});

describe('pki/crl-reasons', () => {
  it('is the RFC 5280 CRLReason table (7 unused)', () => {
    expect(CRL_REASONS.map((r) => [r.name, r.code])).to.deep.equal([
      ['unspecified', 0],
      ['keyCompromise', 1],
      ['cACompromise', 2],
      ['affiliationChanged', 3],
      ['superseded', 4],
      ['cessationOfOperation', 5],
      ['certificateHold', 6],
      ['removeFromCRL', 8],
      ['privilegeWithdrawn', 9],
      ['aACompromise', 10],
    ]);
    expect(CRL_REASON_NAMES).to.have.length(10);
    expect(CRL_REASON_CODES.keyCompromise).to.equal(1);
    expect(crlReasonCode('aACompromise')).to.equal(10);
    expect(crlReasonFromCode(8)).to.equal('removeFromCRL');
    expect(() => crlReasonFromCode(7)).to.throw(RangeError);
    expect(isCrlReason('superseded')).to.equal(true);
    expect(isCrlReason('toString')).to.equal(false);
    expect(isCrlReason('KeyCompromise')).to.equal(false);
  });
});
