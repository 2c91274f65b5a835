/** The {crl_url} host's HTTP behaviour, over a publication source the test controls. */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { createCrlHost, type PublicationSource } from '../../ocsp/crl-host.js';
import { listenServer } from '../../ocsp/http-server.js';
import type { PublicationName } from '../../shared/pki/publication-files.js';
import type { Publication } from '../../shared/pki/publications.js';

const HOUR = 3600_000;

class Source implements PublicationSource {
  readonly items = new Map<PublicationName, Publication>();
  failing = false;
  async read(name: PublicationName): Promise<Publication | undefined> {
    if (this.failing) throw new Error('database down (test)');
    return this.items.get(name);
  }
}

describe('trust: CRL host', function () {
  const source = new Source();
  let clock = Date.parse('2026-03-02T10:00:00Z');
  let server: Server;
  let base: string;
  const thisUpdate = new Date('2026-03-02T09:00:00Z');

  before(async function () {
    server = createCrlHost(source, { now: () => clock });
    const { port } = await listenServer(server, 0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
  });

  after(function () {
    server.closeAllConnections();
    server.close();
  });

  beforeEach(function () {
    clock = Date.parse('2026-03-02T10:00:00Z');
    source.failing = false;
    source.items.clear();
    source.items.set('leaf.crl', {
      name: 'leaf.crl',
      der: Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01),
      contentType: 'application/pkix-crl',
      lastModified: thisUpdate,
      expires: new Date(thisUpdate.getTime() + 7 * 24 * HOUR),
    });
    source.items.set('root-ca.cer', {
      name: 'root-ca.cer',
      der: Uint8Array.of(0x30, 0x00),
      contentType: 'application/pkix-cert',
      lastModified: new Date('2026-01-01T00:00:00.250Z'),
    });
  });

  it('serves a CRL with the spec headers; HEAD sends the headers alone', async function () {
    const res = await fetch(`${base}/leaf.crl`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pkix-crl');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(res.headers.get('last-modified')).to.equal('Mon, 02 Mar 2026 09:00:00 GMT');
    expect(res.headers.get('content-length')).to.equal('5');
    expect([...new Uint8Array(await res.arrayBuffer())]).to.deep.equal([0x30, 0x03, 0x02, 0x01, 0x01]);
    const head = await fetch(`${base}/leaf.crl`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('etag')).to.equal(res.headers.get('etag'));
  });

  it('answers 304 to a matching If-None-Match (list, weak or *), 200 to another ETag', async function () {
    const etag = (await fetch(`${base}/leaf.crl`)).headers.get('etag')!;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await fetch(`${base}/leaf.crl`, { headers: { 'If-None-Match': inm } });
      expect(res.status, inm).to.equal(304);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
    }
    // If-None-Match decides even when If-Modified-Since alone would say 304.
    const changed = await fetch(`${base}/leaf.crl`, { headers: { 'If-None-Match': '"stale"', 'If-Modified-Since': 'Mon, 02 Mar 2026 09:00:00 GMT' } });
    expect(changed.status).to.equal(200);
  });

  it('answers If-Modified-Since by whole seconds', async function () {
    const same = await fetch(`${base}/root-ca.cer`, { headers: { 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' } });
    expect(same.status).to.equal(304);
    const older = await fetch(`${base}/root-ca.cer`, { headers: { 'If-Modified-Since': 'Wed, 31 Dec 2025 23:59:59 GMT' } });
    expect(older.status).to.equal(200);
    expect(older.headers.get('content-type')).to.equal('application/pkix-cert');
  });

  it('never lets a cache keep a CRL past its nextUpdate', async function () {
    clock = thisUpdate.getTime() + 7 * 24 * HOUR - 600_000; // ten minutes left
    expect((await fetch(`${base}/leaf.crl`)).headers.get('cache-control')).to.equal('public, max-age=600');
  });

  it('404 JSON for unknown names and unpublished ones, 405 for other methods', async function () {
    for (const p of ['/', '/leaf.crl.bak', '/crl/leaf.crl', '//leaf.crl', '/LEAF.CRL', '/sub-ca.crl']) {
      const res = await fetch(`${base}${p}`);
      expect(res.status, p).to.equal(404);
      expect(res.headers.get('content-type')).to.equal('application/json');
      expect((await res.json()).error.code).to.equal('not_found');
    }
    const del = await fetch(`${base}/leaf.crl`, { method: 'DELETE' });
    expect(del.status).to.equal(405);
    expect(del.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('when the source fails: the last served CRL while valid, else 503; nothing stale', async function () {
    await fetch(`${base}/leaf.crl`); // served once: remembered
    source.failing = true;
    const fallback = await fetch(`${base}/leaf.crl`);
    expect(fallback.status).to.equal(200);
    expect(fallback.headers.get('content-type')).to.equal('application/pkix-crl');
    clock = thisUpdate.getTime() + 7 * 24 * HOUR; // nextUpdate reached
    const expired = await fetch(`${base}/leaf.crl`);
    expect(expired.status).to.equal(503);
    expect((await expired.json()).error.code).to.equal('unavailable');
    const never = await fetch(`${base}/sub-ca.cer`);
    expect(never.status).to.equal(503);
  });

  it('forgets a publication the source no longer has', async function () {
    await fetch(`${base}/leaf.crl`);
    source.items.delete('leaf.crl');
    expect((await fetch(`${base}/leaf.crl`)).status).to.equal(404);
    source.failing = true;
    expect((await fetch(`${base}/leaf.crl`)).status).to.equal(503);
  });
});
