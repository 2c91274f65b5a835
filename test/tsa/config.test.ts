import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, DEFAULT_TSA_POLICY_OID, loadConfig } from '../../shared/config.js';

// Every test's DATA_DIR lives under one directory, removed when the file's tests are done.
const scratch = mkdtempSync(path.join(tmpdir(), 'cfg-tsa-'));
const base = () => ({ DATA_DIR: mkdtempSync(path.join(scratch, 'd-')) });

describe('tsa: configuration', function () {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('defaults: own TSA on 3003, timestamps on, key tsa-signing, X.667 policy OID', function () {
    const c = loadConfig(base());
    expect([c.tsaPort, c.tsaUrl, c.tsaKeyName, c.tsaTimeoutMs, c.signWithoutTimestamp]).to.deep.equal([3003, 'http://localhost:3003', 'tsa-signing', 10_000, false]);
    expect(c.tsaPolicyOid).to.equal(DEFAULT_TSA_POLICY_OID);
    expect(c.pki.tsaCommonName).to.equal('Media Signing Service Time Stamping');
  });

  it('an external TSA, a port, a policy, the opt-out', function () {
    const c = loadConfig({
      ...base(),
      TSA_PORT: '4555',
      TSA_URL: 'https://tsa.example.eu/tsr/',
      TSA_POLICY_OID: '1.3.6.1.4.1.99999.1',
      SIGN_WITHOUT_TIMESTAMP: 'true',
      PKI_ORGANISATION: 'Planet',
    });
    expect([c.tsaPort, c.tsaUrl, c.tsaPolicyOid, c.signWithoutTimestamp, c.pki.tsaCommonName]).to.deep.equal([4555, 'https://tsa.example.eu/tsr', '1.3.6.1.4.1.99999.1', true, 'Planet Time Stamping']);
    expect(loadConfig({ ...base(), TSA_PORT: '4555' }).tsaUrl).to.equal('http://localhost:4555');
  });

  for (const [name, value] of [
    ['TSA_URL', 'ftp://tsa.example'],
    ['TSA_POLICY_OID', '1.2.x'],
    ['TSA_POLICY_OID', '3.1'],
    ['TSA_POLICY_OID', '1.40.1'],
    ['SIGN_WITHOUT_TIMESTAMP', 'maybe'],
    ['TSA_TIMEOUT_MS', '5'],
    ['TSA_PORT', '70000'],
  ] as const) {
    it(`names ${name} when it is "${value}"`, function () {
      expect(() => loadConfig({ ...base(), [name]: value })).to.throw(ConfigError, new RegExp(`^configuration: ${name} `));
    });
  }
});
