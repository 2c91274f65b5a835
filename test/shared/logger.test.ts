import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, logMode, type CreateLoggerOptions } from '../../shared/logger.js';
import { certificateLogFields } from '../../shared/pki/certificate-log.js';

/** A logger whose lines are collected; JSON unless the options say otherwise. */
function capturedLogger(options: Omit<CreateLoggerOptions, 'destination'> = { isTTY: false }) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger('info', 'test', { ...options, destination });
  // pino-pretty hands lines on through a stream pipeline: let it drain before reading.
  const output = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return chunks.join('');
  };
  return { logger, output };
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Shaped like a certificates row (shared/db/repositories/certificates.ts), DER and all. */
function certificateRow() {
  const der = new Uint8Array(1200).fill(0x82);
  der[0] = 0x30;
  return {
    id: '1526c77c-3e74-497c-ade7-166ee1551cb7',
    serial: '0c9bac4996082b915ccd742305876630',
    role: 'root' as const,
    issuer_id: null,
    key_name: 'root-ca',
    subject: 'CN=Media Signing Service Root CA,O=Media Signing Service',
    issuer: 'CN=Media Signing Service Root CA,O=Media Signing Service',
    not_before: new Date('2025-01-01T00:00:00Z'),
    not_after: new Date('2045-01-01T00:00:00Z'),
    der,
    fingerprint_sha256: createHash('sha256').update(der).digest('hex'),
    revoked_at: null,
    revocation_reason: null,
    created_at: new Date('2025-01-01T00:00:00Z'),
  };
}

describe('logger', () => {
  describe('certificates and binary values', () => {
    it('a certificate is logged by its role, serial, subject, fingerprint and validity end, not its DER', async () => {
      const cert = certificateRow();
      const { logger, output } = capturedLogger();
      logger.info({ issued: [cert].map(certificateLogFields) }, 'PKI ready');
      const text = await output();
      const [line] = jsonLines(text);
      expect(line!.issued).to.deep.equal([
        {
          certificateRole: 'root',
          serial: cert.serial,
          subject: cert.subject,
          fingerprintSha256: cert.fingerprint_sha256,
          notAfter: '2045-01-01T00:00:00.000Z',
        },
      ]);
      expect(text).not.to.contain('"0":48');
      expect(text).not.to.contain('der');
      expect(text.length).to.be.below(500);
    });

    it("a certificate logged through a role's child logger keeps one role key (the process role)", async () => {
      const { logger, output } = capturedLogger();
      logger.child({ role: 'ocsp' }).info(certificateLogFields(certificateRow()), 'certificate issued');
      const text = await output();
      expect(text.match(/"role":/g)).to.have.length(1);
      expect(jsonLines(text)[0]).to.include({ role: 'ocsp', certificateRole: 'root', serial: '0c9bac4996082b915ccd742305876630' });
    });

    it('a Buffer or Uint8Array in a log object is written as its length, not its bytes', async () => {
      const { logger, output } = capturedLogger();
      logger.info({ payload: Buffer.alloc(4096, 0x30), der: new Uint8Array([48, 130, 1, 10]), serial: 'ab' }, 'binary');
      // A whole certificate row logged by mistake: its DER is summarised too.
      logger.info(certificateRow(), 'row');
      const text = await output();
      const [binary, row] = jsonLines(text);
      expect(binary!.payload).to.deep.equal({ bytes: 4096 });
      expect(binary!.der).to.deep.equal({ bytes: 4 });
      expect(binary!.serial).to.equal('ab');
      expect(row!.der).to.deep.equal({ bytes: 1200 });
      expect(row!.serial).to.equal('0c9bac4996082b915ccd742305876630');
      expect(text).not.to.match(/"data":\[|"0":48|"type":"Buffer"/);
      expect(text.length).to.be.below(1000);
    });

    it('leaves an object without binary values as it is, and still redacts credentials', async () => {
      const { logger, output } = capturedLogger();
      const obj = { user: { password: 'hunter2' }, count: 3 };
      logger.info(obj, 'plain');
      const [line] = jsonLines(await output());
      expect(line!.count).to.equal(3);
      expect(line!.user).to.deep.equal({ password: '[redacted]' });
      expect(obj.user.password).to.equal('hunter2');
    });
  });

  describe('output mode', () => {
    it('is pretty only for a terminal outside production', () => {
      expect(logMode({ isTTY: true, nodeEnv: 'development' })).to.equal('pretty');
      expect(logMode({ isTTY: true, nodeEnv: 'test' })).to.equal('pretty');
      expect(logMode({ isTTY: true, nodeEnv: undefined })).to.equal(process.env.NODE_ENV === 'production' ? 'json' : 'pretty');
      expect(logMode({ isTTY: true, nodeEnv: 'production' })).to.equal('json');
      expect(logMode({ isTTY: false, nodeEnv: 'development' })).to.equal('json');
      expect(logMode({ isTTY: false, nodeEnv: 'production' })).to.equal('json');
    });

    it('writes human-readable lines at a terminal, with binary values summarised', async () => {
      const { logger, output } = capturedLogger({ isTTY: true, nodeEnv: 'development' });
      logger.info({ serial: 'ab', der: Buffer.alloc(2048) }, 'hello there');
      const text = await output();
      expect(text).to.contain('hello there');
      expect(text).to.contain('INFO');
      expect(text).to.contain('"bytes": 2048');
      expect(() => JSON.parse(text.split('\n')[0]!)).to.throw();
    });

    it('writes JSON lines in production, even at a terminal', async () => {
      const { logger, output } = capturedLogger({ isTTY: true, nodeEnv: 'production' });
      logger.info({ serial: 'ab' }, 'hello there');
      const [line] = jsonLines(await output());
      expect(line).to.include({ msg: 'hello there', serial: 'ab', name: 'test', level: 30 });
    });
  });
});
