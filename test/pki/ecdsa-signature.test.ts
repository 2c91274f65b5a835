import { expect } from 'chai';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  EcdsaSignatureError,
  P384_ORDER,
  P384_RAW_SIGNATURE_BYTES,
  ecdsaDerToRaw,
  ecdsaRawToDer,
} from '../../shared/pki/ecdsa-signature.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ''), 'hex'));

/** 48-byte big-endian component from a bigint. */
function component(v: bigint): Uint8Array {
  return fromHex(v.toString(16).padStart(96, '0'));
}

function raw(r: bigint, s: bigint): Uint8Array {
  return new Uint8Array([...component(r), ...component(s)]);
}

/** Expected DER INTEGER content length for a 48-byte component, computed independently of the module. */
function minimalIntegerLength(c: Uint8Array): number {
  let i = 0;
  while (i < c.length - 1 && c[i] === 0) i++;
  return c.length - i + (c[i]! & 0x80 ? 1 : 0);
}

/** Content lengths of the r and s INTEGERs inside a short-form DER ECDSA-Sig-Value. */
function integerLengths(der: Uint8Array): [number, number] {
  const rLen = der[3]!;
  return [rLen, der[4 + rLen + 1]!];
}

describe('pki/ecdsa-signature: raw r||s <-> DER ECDSA-Sig-Value (P-384)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const data = Buffer.from('ecdsa signature conversion');

  describe('raw -> DER', () => {
    it('encodes components without the high bit as plain 48-byte INTEGERs', () => {
      const r = (0x7fn << 376n) + 1n; // 0x7f ... 01: 48 significant bytes, high bit clear
      const s = 0x01n << 376n; // 0x01 followed by 47 zero bytes
      const der = ecdsaRawToDer(raw(r, s));
      expect(der.length).to.equal(2 + 2 + 48 + 2 + 48);
      expect(hex(der.subarray(0, 4))).to.equal('30640230');
      expect(der[2 + 2 + 48]).to.equal(0x02);
      expect(der[2 + 2 + 48 + 1]).to.equal(48);
    });

    it('prefixes one 0x00 when the high bit of a component is set', () => {
      const r = P384_ORDER - 1n; // 0xff... high bit set
      const s = 0x80n << 376n; // 0x80 followed by 47 zero bytes
      const der = ecdsaRawToDer(raw(r, s));
      expect(der.length).to.equal(2 + 2 * (2 + 49));
      expect(hex(der.subarray(0, 5))).to.equal('3066023100');
      expect(der[5]).to.equal(0xff);
      const sAt = 2 + 2 + 49;
      expect(hex(der.subarray(sAt, sAt + 4))).to.equal('02310080');
      expect(hex(ecdsaDerToRaw(der))).to.equal(hex(raw(r, s)));
    });

    it('strips leading zero bytes of a component (minimal INTEGER)', () => {
      const r = 0x1234n; // 46 leading zero bytes
      const s = 1n;
      const der = ecdsaRawToDer(raw(r, s));
      expect(hex(der)).to.equal('3007' + '02021234' + '020101');
      expect(hex(ecdsaDerToRaw(der))).to.equal(hex(raw(r, s)));
    });

    it('keeps one 0x00 when stripping zeros exposes a high bit', () => {
      const r = 0x80n << 368n; // 0x00 0x80 then 46 zero bytes: 47 significant bytes, high bit set
      const der = ecdsaRawToDer(raw(r, 5n));
      expect(hex(der.subarray(0, 5))).to.equal('3035023000');
      expect(der[5]).to.equal(0x80);
      expect(hex(ecdsaDerToRaw(der))).to.equal(hex(raw(r, 5n)));
    });

    it('rejects wrong lengths, zero components and components not below the group order', () => {
      expect(() => ecdsaRawToDer(new Uint8Array(95))).to.throw(EcdsaSignatureError, /96 bytes/);
      expect(() => ecdsaRawToDer(new Uint8Array(64))).to.throw(EcdsaSignatureError);
      expect(() => ecdsaRawToDer(raw(0n, 1n))).to.throw(EcdsaSignatureError, /r is zero/);
      expect(() => ecdsaRawToDer(raw(1n, 0n))).to.throw(EcdsaSignatureError, /s is zero/);
      expect(() => ecdsaRawToDer(raw(P384_ORDER, 1n))).to.throw(EcdsaSignatureError, /order/);
      expect(() => ecdsaRawToDer(raw(1n, (1n << 384n) - 1n))).to.throw(EcdsaSignatureError, /order/);
    });
  });

  describe('DER -> raw', () => {
    const ok = ecdsaRawToDer(raw(0x1234n, 0x56n)); // 3007 02021234 020156
    it('left-pads components to 48 bytes', () => {
      const out = ecdsaDerToRaw(ok);
      expect(out.length).to.equal(P384_RAW_SIGNATURE_BYTES);
      expect(hex(out)).to.equal(hex(raw(0x1234n, 0x56n)));
    });

    const bad: Array<[string, string, RegExp]> = [
      ['not a SEQUENCE', '3107 02021234 020156', /SEQUENCE/],
      ['long-form SEQUENCE length', '308107 02021234 020156', /long-form/],
      ['length mismatch', '3008 02021234 020156', /length/],
      ['trailing bytes after the SEQUENCE', '3007 02021234 020156 00', /length/],
      ['extra element inside', '300a 02021234 020156 020101', /extra/],
      ['missing s', '3004 02021234', /truncated|short/],
      ['r not an INTEGER', '3007 04021234 020156', /not an INTEGER/],
      ['negative r', '3007 02029234 020156', /negative/],
      ['non-minimal r (00 before a low byte)', '3008 0203001234 020156', /non-minimal/],
      ['non-minimal r (00 00 80)', '3009 020400008034 020156', /non-minimal/],
      ['zero r', '3006 020100 020156', /zero/],
      ['empty r', '3005 0200 020156', /empty|short/],
      ['r longer than 48 bytes', `3038 0233${'01'.repeat(51)} 020156`, /longer/],
    ];
    for (const [name, h, re] of bad) {
      it(`rejects ${name}`, () => {
        expect(() => ecdsaDerToRaw(fromHex(h))).to.throw(EcdsaSignatureError, re);
      });
    }

    it('rejects s at or above the group order', () => {
      const der = fromHex(`3036 020101 023100${P384_ORDER.toString(16)}`);
      expect(() => ecdsaDerToRaw(der)).to.throw(EcdsaSignatureError, /order/);
    });
  });

  describe('cross-check with node:crypto (OpenSSL) dsaEncoding "der" and "ieee-p1363"', () => {
    it('raw signatures converted to DER verify as DER, and DER converts back to the same raw bytes', () => {
      let highBit = 0;
      for (let i = 0; i < 200; i++) {
        const rawSig = new Uint8Array(sign('sha384', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }));
        const der = ecdsaRawToDer(rawSig);
        expect(integerLengths(der)).to.deep.equal([minimalIntegerLength(rawSig.subarray(0, 48)), minimalIntegerLength(rawSig.subarray(48))]);
        expect(verify('sha384', data, { key: publicKey, dsaEncoding: 'der' }, der)).to.equal(true);
        expect(hex(ecdsaDerToRaw(der))).to.equal(hex(rawSig));
        if (rawSig[0]! & 0x80 || rawSig[48]! & 0x80) highBit++;
      }
      expect(highBit, 'some signatures had a component with the high bit set').to.be.greaterThan(0);
    });

    it("OpenSSL's own DER signatures convert to raw that verifies, and re-encode byte-for-byte", () => {
      for (let i = 0; i < 200; i++) {
        const der = new Uint8Array(sign('sha384', data, { key: privateKey, dsaEncoding: 'der' }));
        const rawSig = ecdsaDerToRaw(der);
        expect(verify('sha384', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, rawSig)).to.equal(true);
        expect(hex(ecdsaRawToDer(rawSig))).to.equal(hex(der));
      }
    });

    it('handles real signatures whose r or s has a leading zero byte (shorter INTEGER)', () => {
      let found = 0;
      for (let i = 0; i < 20000 && found < 3; i++) {
        const der = new Uint8Array(sign('sha384', data, { key: privateKey, dsaEncoding: 'der' }));
        const rawSig = ecdsaDerToRaw(der);
        if (rawSig[0] !== 0 && rawSig[48] !== 0) continue;
        found++;
        const [rLen, sLen] = integerLengths(der);
        expect(rawSig[0] === 0 ? rLen : sLen).to.be.at.most(48); // the zero-led component lost its leading byte
        expect([rLen, sLen]).to.deep.equal([minimalIntegerLength(rawSig.subarray(0, 48)), minimalIntegerLength(rawSig.subarray(48))]);
        expect(hex(ecdsaRawToDer(rawSig))).to.equal(hex(der));
        expect(verify('sha384', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, rawSig)).to.equal(true);
      }
      expect(found, 'signatures with a leading zero component were found').to.be.greaterThan(0);
    });
  });
});
