import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { readPins, SHIPPED_TRUST_LISTS_DIR } from '../../shared/trust/lists.js';
import { updateTrustLists } from '../../shared/trust/update.js';
import { fixture, opensslTimestamper } from '../c2pa/helpers.js';
import { issueShortLivedLeaf, issueTestChain, tempDir } from '../pki/helpers.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

/**
 * Each trust list vouches for what it is written for, judged by c2pa-rs on real files: end-entity certificates of an
 * allowed list (the operator's TRUST_ALLOWED_FILE, the interim list's allowed.pem) make their signer Trusted; an
 * anchor for timestamps (TRUST_TSA_ANCHORS_FILE, the C2PA TSA Trust List) makes a TSA trusted, never a claim signer.
 */
describe('trust lists by kind: allowed end-entity certificates, anchors for timestamps only', function () {
  this.timeout(120_000);
  const scratch = mkdtempSync(path.join(tmpdir(), 'trust-kinds-'));
  /** Signs with `allowed` (its root on no list); `stamped` signs and stamps with its own leaf and TSA. */
  let allowed: OpensslChain;
  let stamped: OpensslChain;
  let allowedFile: Uint8Array;
  let stampedFile: Uint8Array;
  const apis: TestApi[] = [];

  const sign = async (chain: OpensslChain, title: string, timestamper?: Awaited<ReturnType<typeof opensslTimestamper>>) =>
    signAsset({
      bytes: await fixture('photo.jpg'),
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title, creator: 'Desk' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      timestamper,
    });
  const file = (name: string, text: string) => {
    const at = path.join(scratch, name);
    writeFileSync(at, text);
    return at;
  };
  const api = async (env: Record<string, string>) => {
    const started = await startTestApi(env, { issuer: false });
    apis.push(started);
    return started;
  };
  const verify = async (a: TestApi, bytes: Uint8Array) => (await request(a.app).post('/v1/verify').attach('file', Buffer.from(bytes), 'photo.jpg').expect(200)).body;
  /** c2pa-rs's own verdict under raw settings (no service code between). */
  const c2paRs = async (bytes: Uint8Array, trust: object) => {
    const verifyOptions = { remote_manifest_fetch: false, ocsp_fetch: false, verify_after_reading: true, verify_trust: true, verify_timestamp_trust: true };
    const reader = await c2paWasm().WasmReader.fromBytes('image/jpeg', bytes, JSON.stringify({ trust, verify: verifyOptions }));
    try {
      return JSON.parse(reader.json()) as { validation_state: string };
    } finally {
      reader.free();
    }
  };

  before(async () => {
    [allowed, stamped] = await Promise.all([makeOpensslChain({ cn: 'Allowed Newsroom' }), makeOpensslChain({ cn: 'Stamp' })]);
    allowedFile = await sign(allowed, 'allowed.jpg', await opensslTimestamper(allowed));
    stampedFile = await sign(stamped, 'stamped.jpg', await opensslTimestamper(stamped));
  });
  after(async () => {
    await Promise.all(apis.map((a) => a.close()));
    for (const chain of [allowed, stamped]) if (chain) rmSync(chain.dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('c2pa-rs counts an allowed end-entity certificate only inside a trust.anchors[] entry, not as a top-level allowed_list', async () => {
    const unrelated = stamped.pem.root;
    expect((await c2paRs(allowedFile, { trust_anchors: unrelated, allowed_list: allowed.pem.leaf })).validation_state).to.equal('Valid');
    expect((await c2paRs(allowedFile, { anchors: [{ trust_kind: 'manifest', trust_anchors: unrelated, allowed_list: allowed.pem.leaf }] })).validation_state).to.equal('Trusted');
    // The settings this service writes: the same verdict through readAsset.
    const report = await readAsset(allowedFile, 'image/jpeg', { lists: [{ kind: 'manifest', anchorsPem: [], allowedPem: [allowed.pem.leaf] }] });
    expect(report.validation_state).to.equal('Trusted');
  });

  it('reads a signer on TRUST_ALLOWED_FILE Trusted, with trust_source operator_allowed, as c2pa-rs does; without the file, not trusted', async () => {
    const withAllowed = await api({ TRUST_ALLOWED_FILE: file('allowed.pem', allowed.pem.leaf), TRUST_LISTS: 'official' });
    const body = await verify(withAllowed, allowedFile);
    expect(body.validation_state, JSON.stringify(body.status)).to.equal('Trusted');
    expect(body.signer).to.deep.include({ trust_source: 'operator_allowed', trust_list_version: null });
    // Its TSA (under the same root, which is on no list) is not trusted: only the signer's own certificate is.
    expect(body.timestamp).to.deep.include({ validated: true, trusted: false, trust_source: null });

    const without = await verify(await api({ TRUST_LISTS: 'official' }), allowedFile);
    expect(without.validation_state).to.equal('Valid');
    expect(without.signer.trust_source).to.equal(null);
  });

  it("counts the interim list's allowed certificates: a signer added to a pinned copy of allowed.pem reads Trusted through the interim list", async () => {
    const dir = mkdtempSync(path.join(scratch, 'lists-'));
    cpSync(SHIPPED_TRUST_LISTS_DIR, dir, { recursive: true });
    const from = mkdtempSync(path.join(scratch, 'from-'));
    cpSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'official'), from, { recursive: true });
    cpSync(path.join(SHIPPED_TRUST_LISTS_DIR, 'interim'), from, { recursive: true });
    writeFileSync(path.join(from, 'allowed.pem'), readFileSync(path.join(from, 'allowed.pem'), 'utf8') + allowed.pem.leaf);
    await updateTrustLists({ dir, from, version: 'with a test signer' });

    const a = await api({ TRUST_LISTS_DIR: dir });
    const body = await verify(a, allowedFile);
    expect(body.validation_state, JSON.stringify(body.status)).to.equal('Trusted');
    expect(body.signer).to.deep.include({ trust_source: 'interim_trust_list', trust_list_version: readPins(dir).lists.interim.version });
    // The shipped list, without it: not trusted.
    expect((await verify(await api({}), allowedFile)).validation_state).to.equal('Valid');
  });

  it('keeps TRUST_TSA_ANCHORS_FILE for timestamps: a TSA under it is trusted, a claim signer chaining only to it is not', async () => {
    const a = await api({ TRUST_TSA_ANCHORS_FILE: file('tsa-anchors.pem', stamped.pem.root), TRUST_LISTS: 'official' });
    const body = await verify(a, stampedFile);
    expect(body.validation_state).to.equal('Valid');
    expect(body.status.success).to.not.include('signingCredential.trusted');
    expect(body.status.failure).to.deep.equal(['signingCredential.untrusted']);
    expect(body.failures).to.deep.include({
      code: 'signingCredential.untrusted',
      explanation: 'the signing certificate chains only to an anchor for timestamps (a TSA list), which does not vouch for claim signers',
      in: 'manifest',
      ingredient: null,
      url: `self#jumbf=/c2pa/${body.active_manifest}/c2pa.signature`,
    });
    expect(body.signer.trust_source).to.equal(null);
    expect(body.timestamp).to.deep.include({ validated: true, trusted: true, trust_source: 'operator_anchor' });

    // c2pa-rs 0.91.3 alone, given the root as a tsa-kind anchor, trusts the claim signer too: why the service asks
    // each claim-signer list alone. The day it keeps the kinds apart, this reads Valid and the two agree.
    const alone = await c2paRs(stampedFile, { anchors: [{ trust_kind: 'tsa', trust_anchors: stamped.pem.root }] });
    expect(alone.validation_state).to.equal('Trusted');
    // The same root among the operator's anchors for both kinds: the claim signer is trusted.
    const both = await verify(await api({ TRUST_ANCHORS_FILE: file('anchors.pem', stamped.pem.root), TRUST_LISTS: 'official' }), stampedFile);
    expect(both.validation_state).to.equal('Trusted');
    expect(both.signer.trust_source).to.equal('operator_anchor');
  });

  it('names the source of a signer whose certificate has expired since, its TSA on a list for timestamps only', async function () {
    // The re-read that names the source must date the signature by its timestamp without the TSA lists.
    const tmp = tempDir('trust-kinds-expiry-');
    try {
      const chain = await issueTestChain(tmp.dir);
      const leaf = await issueShortLivedLeaf(chain, 3000);
      const signed = await signAsset({
        bytes: await fixture('photo.jpg'),
        mimeType: 'image/jpeg',
        manifest: buildManifestDefinition({ title: 'expiring.jpg', creator: 'Desk' }, { sourceHasManifest: false }),
        key: chain.keys.leaf,
        chainDer: [leaf.der, chain.subCa.der],
        timestamper: await opensslTimestamper(stamped),
      });
      const a = await api({ TRUST_ANCHORS_FILE: file('signer-root.pem', chain.root.pem), TRUST_TSA_ANCHORS_FILE: file('stamp-root.pem', stamped.pem.root), TRUST_LISTS: 'official' });
      while (Date.now() <= leaf.facts.notAfter.getTime() + 1000) await new Promise((r) => setTimeout(r, 100));
      const body = await verify(a, signed);
      expect(body.validation_state, JSON.stringify(body.status)).to.equal('Trusted');
      expect(body.signer.trust_source).to.equal('operator_anchor');
      expect(body.timestamp).to.deep.include({ trusted: true, trust_source: 'operator_anchor' });
    } finally {
      tmp.cleanup();
    }
  });
});
