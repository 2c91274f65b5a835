/**
 * Responder copies on one database share pre-signed responses (ocsp/response-store.ts): the second copy serves
 * the first copy's response without a vault signature, a revocation removes it in the revoking transaction, and
 * a "good" signed before a revocation is never stored after it.
 */
import { expect } from 'chai';
import { databaseStatusLookup, loadOcspIssuers } from '../../ocsp/database-issuers.js';
import { OcspResponder } from '../../ocsp/responder.js';
import type { OcspAnswer, OcspSignedAnswer } from '../../ocsp/source.js';
import { databaseResponseStore } from '../../ocsp/response-store.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { certIdFor, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { InProcessPkiEvents } from '../../shared/pki/pki-events.js';
import { parseOcspResponse } from '../ocsp/support.js';
import { startTrust, type TrustFixture } from './support.js';

function signed(answer: OcspAnswer): OcspSignedAnswer {
  expect(answer.responseStatus).to.equal('successful');
  return answer as OcspSignedAnswer;
}

/** The certStatus choice of the response's only SingleResponse: good, revoked or unknown. */
function certStatusOf(der: Uint8Array): string {
  const single = parseOcspResponse(der).basic!.tbsResponseData.responses[0]!;
  return Object.entries(single.certStatus).find(([, v]) => v !== undefined)![0];
}

describe('trust: OCSP responses shared between responder copies (Postgres)', function () {
  let t: TrustFixture;
  let chain: InitPkiResult;
  const copy = async () =>
    new OcspResponder({
      issuers: await loadOcspIssuers(t.db.knex, t.vault),
      lookupStatus: databaseStatusLookup(t.db.knex, 'good'),
      store: databaseResponseStore(t.db.knex),
    });
  const leafRequest = () => encodeOcspRequest([certIdFor(new Uint8Array(chain.subCa.der), chain.leaf.serial)]);

  before(async function () {
    t = await startTrust();
    chain = await initPki(t.deps);
  });
  after(async () => t?.close());

  it('a second copy serves the first copy’s response without signing; serials never issued stay per copy', async function () {
    const a = await copy();
    const b = await copy();
    const fromA = signed(await a.respond(leafRequest()));
    const fromB = signed(await b.respond(leafRequest()));
    expect(Buffer.from(fromB.der).equals(Buffer.from(fromA.der))).to.equal(true);
    expect(a.stats()).to.include({ signatures: 1, storeHits: 0 });
    expect(b.stats()).to.include({ signatures: 0, storeHits: 1 });
    expect(await t.db.knex('ocsp_responses').where({ serial: chain.leaf.serial }).select('cert_id')).to.have.length(1);

    const never = encodeOcspRequest([certIdFor(new Uint8Array(chain.subCa.der), '7e57')]);
    signed(await a.respond(never));
    signed(await b.respond(never));
    expect(b.stats().signatures).to.equal(1);
    expect(await t.db.knex('ocsp_responses').where({ serial: '7e57' }).first()).to.equal(undefined);
  });

  it('a revocation deletes the stored response; a "good" signed before it is not stored after it', async function () {
    const before = await copy();
    expect(certStatusOf(signed(await before.respond(leafRequest())).der)).to.equal('good');
    const store = databaseResponseStore(t.db.knex);
    const certIdHex = Buffer.from(certIdFor(new Uint8Array(chain.subCa.der), chain.leaf.serial)).toString('hex');
    const staleGood = (await store.get(certIdHex))!;

    await revokeCertificate({ ...t.deps, events: new InProcessPkiEvents() }, chain.leaf.serial, 'keyCompromise');
    expect(await store.get(certIdHex)).to.equal(undefined);
    // A copy that looked the status up before the revocation and stores after it: refused.
    await store.put(certIdHex, chain.leaf.serial, { ...staleGood, thisUpdate: new Date(staleGood.thisUpdate.getTime() + 1000) }, true);
    expect(await store.get(certIdHex)).to.equal(undefined);

    const after = await copy();
    const answer = signed(await after.respond(leafRequest()));
    expect(certStatusOf(answer.der)).to.equal('revoked');
    expect(after.stats()).to.include({ signatures: 1, storeHits: 0 });
    // The revoked response is stored for the others.
    const other = await copy();
    expect(Buffer.from(signed(await other.respond(leafRequest())).der).equals(Buffer.from(answer.der))).to.equal(true);
    expect(other.stats()).to.include({ signatures: 0, storeHits: 1 });
  });
});
