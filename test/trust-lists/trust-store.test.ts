import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { readPins, SHIPPED_TRUST_LISTS_DIR, TRUST_LIST_NAMES, TrustListError } from '../../shared/trust/lists.js';
import { buildTrustStore, processTrustStore, secondsToNextUpdate, staleLists, TrustStoreLoader } from '../../shared/trust/store.js';
import { updateTrustLists } from '../../shared/trust/update.js';
import '../../shared/metrics/metrics.js';
import { registry } from '../../shared/metrics/registry.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'trust-lists-'));
/** A private copy of the shipped lists, so a test may tamper with or update it. */
function copyOfLists(): string {
  const dir = mkdtempSync(path.join(scratch, 'lists-'));
  cpSync(SHIPPED_TRUST_LISTS_DIR, dir, { recursive: true });
  return dir;
}

/** The PEM bundle without its last certificate. */
const dropLastCertificate = (pem: string) => pem.slice(0, pem.lastIndexOf('-----BEGIN CERTIFICATE-----'));

describe('trust lists (shipped, pinned)', () => {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('ships the official and interim lists, each file matching its pin, with the official dates from its JSON', () => {
    const store = buildTrustStore({ trustLists: TRUST_LIST_NAMES, trustAnchorsFile: undefined });
    const official = store.pins.lists.official;
    expect(official.files['official/C2PA-TRUST-LIST.pem']!.sha256).to.equal('75cacc98b79ecac33713c7ecfb58d4a0ef383f3c1f886e7409f9e37e8664aea5');
    expect(official).to.deep.include({ issued: '2026-08-05T00:11:39Z', next_update: '2027-08-05T00:11:39Z' });
    expect(store.pins.lists.interim).to.deep.include({ issued: '2026-01-01', next_update: null });
    // 30 official claim anchors + 27 interim anchors; 117 allowed end-entity certificates; 22 official TSA anchors and
    // the interim anchors (one store for signers and TSAs).
    expect(store.claimAnchors.filter((a) => a.source === 'c2pa_trust_list')).to.have.length(30);
    expect(store.claimAnchors.filter((a) => a.source === 'interim_trust_list')).to.have.length(27);
    expect(store.allowed).to.have.length(117);
    expect(store.tsaAnchors.filter((a) => a.source === 'c2pa_trust_list')).to.have.length(22);
    expect(store.tsaAnchors.filter((a) => a.source === 'interim_trust_list')).to.have.length(27);
    expect(store.ekuConfig).to.include('1.3.6.1.4.1.62558.2.1');
  });

  it('leaves the interim list out with TRUST_LISTS=official, and adds the operator anchors', () => {
    const operatorFile = path.join(scratch, 'operator.pem');
    writeFileSync(operatorFile, readFileSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'interim/anchors.pem'), 'utf8').split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----\n');
    const store = buildTrustStore({ trustLists: ['official'], trustAnchorsFile: operatorFile });
    expect(store.claimAnchors.map((a) => a.source)).to.not.include('interim_trust_list');
    expect(store.tsaAnchors.map((a) => a.source)).to.not.include('interim_trust_list');
    expect(store.allowed).to.have.length(0);
    expect(store.ekuConfig).to.equal(undefined);
    expect(store.claimAnchors.filter((a) => a.source === 'operator_anchor')).to.have.length(1);
    expect(store.tsaAnchors.filter((a) => a.source === 'operator_anchor')).to.have.length(1);
  });

  it('refuses a list file that differs from its pin, naming the file', () => {
    const dir = copyOfLists();
    const file = path.join(dir, 'interim/allowed.pem');
    writeFileSync(file, dropLastCertificate(readFileSync(file, 'utf8')));
    expect(() => buildTrustStore({ dir, trustLists: ['official', 'interim'], trustAnchorsFile: undefined })).to.throw(TrustListError, /interim\/allowed\.pem has SHA-256 [0-9a-f]{64}, pinned a3b79faa/);
    // With the interim list off, the tampered file is not read.
    expect(buildTrustStore({ dir, trustLists: ['official'], trustAnchorsFile: undefined }).claimAnchors).to.have.length(30);
  });

  it("parses TRUST_LISTS and the operator's trust files", () => {
    const base = { DATA_DIR: mkdtempSync(path.join(scratch, 'd-')) };
    expect(loadConfig(base)).to.deep.include({ trustLists: ['official', 'interim'], trustListsDir: undefined, trustAnchorsFile: undefined, trustReloadSeconds: 60 });
    expect(loadConfig({ ...base, TRUST_LISTS: 'official' }).trustLists).to.deep.equal(['official']);
    expect(loadConfig({ ...base, TRUST_LISTS: ' Interim , official,official' }).trustLists).to.deep.equal(['official', 'interim']);
    expect(() => loadConfig({ ...base, TRUST_LISTS: 'official,adobe' })).to.throw(ConfigError, /TRUST_LISTS.*unknown list: adobe/);
    expect(() => loadConfig({ ...base, TRUST_LISTS: 'interim' })).to.throw(ConfigError, /TRUST_LISTS must include official/);
    expect(() => loadConfig({ ...base, TRUST_ANCHORS_FILE: path.join(scratch, 'none.pem') })).to.throw(ConfigError, /TRUST_ANCHORS_FILE/);
    expect(() => loadConfig({ ...base, TRUST_ALLOWED_FILE: path.join(scratch, 'none.pem') })).to.throw(ConfigError, /TRUST_ALLOWED_FILE/);
    expect(() => loadConfig({ ...base, TRUST_TSA_ANCHORS_FILE: path.join(scratch, 'none.pem') })).to.throw(ConfigError, /TRUST_TSA_ANCHORS_FILE/);
    const pem = path.join(scratch, 'one.pem');
    writeFileSync(pem, readFileSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'interim/allowed.pem'), 'utf8').split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----\n');
    expect(loadConfig({ ...base, TRUST_ALLOWED_FILE: pem, TRUST_TSA_ANCHORS_FILE: pem })).to.deep.include({ trustAllowedFile: pem, trustTsaAnchorsFile: pem });
  });

  it("reads the operator's allowed certificates and TSA anchors, and picks up a change to either file", () => {
    const allowedFile = path.join(scratch, 'operator-allowed.pem');
    const tsaFile = path.join(scratch, 'operator-tsa.pem');
    const allowed = readFileSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'interim/allowed.pem'), 'utf8');
    writeFileSync(allowedFile, dropLastCertificate(allowed));
    writeFileSync(tsaFile, readFileSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'official/C2PA-TSA-TRUST-LIST.pem'), 'utf8'));
    const loader = new TrustStoreLoader({ trustLists: ['official'], trustAnchorsFile: undefined, trustAllowedFile: allowedFile, trustTsaAnchorsFile: tsaFile }, 0);
    const store = loader.current();
    expect(store.allowed.map((a) => a.source)).to.deep.equal(Array(116).fill('operator_allowed'));
    expect(store.tsaAnchors.filter((a) => a.source === 'operator_anchor')).to.have.length(22);
    expect(store.claimAnchors.map((a) => a.source)).to.not.include('operator_anchor');

    writeFileSync(allowedFile, allowed);
    utimesSync(allowedFile, new Date(), new Date(Date.now() + 5000));
    expect(loader.current().allowed).to.have.length(117);
  });

  it('`update --from DIR` checks and re-pins the files, and a running store picks the new version up', async () => {
    const dir = copyOfLists();
    const loader = new TrustStoreLoader({ dir, trustLists: ['official', 'interim'], trustAnchorsFile: undefined }, 0);
    expect(loader.current().allowed).to.have.length(117);

    // A new copy of the lists: one allowed certificate fewer, and an official JSON with later dates.
    const from = mkdtempSync(path.join(scratch, 'from-'));
    cpSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'official'), from, { recursive: true });
    cpSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'interim'), from, { recursive: true });
    const allowed = readFileSync(path.join(from, 'allowed.pem'), 'utf8');
    writeFileSync(path.join(from, 'allowed.pem'), dropLastCertificate(allowed));
    const json = readFileSync(path.join(from, 'C2PA-TRUST-LIST.json'), 'utf8');
    writeFileSync(path.join(from, 'C2PA-TRUST-LIST.json'), json.replace('"NextUpdate": "2027-08-05T00:11:39Z"', '"NextUpdate": "2028-01-01T00:00:00Z"'));

    const { changed } = await updateTrustLists({ dir, from, version: 'test copy' });
    expect(changed.sort()).to.deep.equal(['interim/allowed.pem', 'official/C2PA-TRUST-LIST.json']);
    const pins = readPins(dir);
    expect(pins.lists.official).to.deep.include({ version: 'test copy', next_update: '2028-01-01T00:00:00Z' });
    const store = loader.current();
    expect(store.allowed).to.have.length(116);
    expect(store.pins.lists.official.next_update).to.equal('2028-01-01T00:00:00Z');
  });

  it('refuses an update whose file does not parse, writing nothing', async () => {
    const dir = copyOfLists();
    const pinsBefore = readFileSync(path.join(dir, 'pins.json'), 'utf8');
    const from = mkdtempSync(path.join(scratch, 'from-'));
    cpSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'official'), from, { recursive: true });
    cpSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'interim'), from, { recursive: true });
    writeFileSync(path.join(from, 'anchors.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    let error: unknown;
    await updateTrustLists({ dir, from }).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(TrustListError).with.property('message').that.matches(/interim\/anchors\.pem: certificate 1 does not parse/);
    expect(readFileSync(path.join(dir, 'pins.json'), 'utf8')).to.equal(pinsBefore);
  });

  it('says when a list is past its next update', () => {
    const store = buildTrustStore({ trustLists: ['official', 'interim'], trustAnchorsFile: undefined });
    expect(staleLists(store, Date.parse('2027-01-01T00:00:00Z'))).to.deep.equal([]);
    expect(staleLists(store, Date.parse('2027-08-06T00:00:00Z'))).to.deep.equal(['official']);
    // The frozen interim list has no next update.
    expect(Object.keys(secondsToNextUpdate(store))).to.deep.equal(['official']);
  });

  it('reports the seconds to each list\'s next update as a metric, once the process has loaded its store', async () => {
    processTrustStore({ trustLists: ['official', 'interim'], trustListsDir: undefined, trustAnchorsFile: undefined, trustAllowedFile: undefined, trustTsaAnchorsFile: undefined, trustReloadSeconds: 60 });
    const gauge = (await registry.getMetricsAsJSON()).find((m) => m.name === 'mss_trust_list_next_update_seconds');
    const official = gauge?.values.find((v) => v.labels.list === 'official');
    expect(official?.value).to.be.closeTo((Date.parse('2027-08-05T00:11:39Z') - Date.now()) / 1000, 5);
    expect(gauge?.values.map((v) => v.labels.list)).to.deep.equal(['official']);
  });
});
