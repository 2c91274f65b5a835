import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isPublicAddress } from '../../shared/net/addresses.js';
import { assertPublicUrl, checkOutboundUrl, FetchFailedError, guardedFetch, UrlNotAllowedError, UrlNotResolvableError, type GuardedFetchOptions } from '../../shared/net/guarded-fetch.js';
import { rejection } from '../support/rejection.js';

const open: GuardedFetchOptions = { allowPrivate: true, allowHttp: true, maxRedirects: 3, timeoutMs: 5000, maxBytes: 1024 };
const guarded: GuardedFetchOptions = { ...open, allowPrivate: false, allowHttp: false };

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('outbound guard (URLs users give)', () => {
  it('calls public only what is public, including IPv6 forms that carry an IPv4 address', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) expect(isPublicAddress(a), a).to.equal(true);
    for (const a of [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '224.0.0.1', '255.255.255.255', '192.0.2.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', '2002:0a00:0001::1', '2001:db8::1',
      'fe80::1%eth0', 'not an address',
    ]) expect(isPublicAddress(a), a).to.equal(false);
  });

  it('refuses other schemes, plain http, credentials and private address literals before any lookup', () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'http://example.com/', 'https://user:pw@example.com/', 'https://127.0.0.1/', 'https://[::1]/', 'https://[::ffff:10.0.0.1]/', 'https://169.254.169.254/latest', 'not a url']) {
      expect(() => checkOutboundUrl(url, guarded), url).to.throw(UrlNotAllowedError);
    }
    expect(checkOutboundUrl('https://example.com/x', guarded).hostname).to.equal('example.com');
    expect(checkOutboundUrl('http://127.0.0.1:8080/', open).port).to.equal('8080');
  });

  it('refuses a name that resolves to no address as url_not_resolvable (unprocessable), not as a failure of its own', async () => {
    for (const url of ['https://nonexistent.invalid/h', 'https://localhost./h']) {
      const err = await rejection(assertPublicUrl(url, guarded));
      expect(err, url).to.be.instanceOf(UrlNotResolvableError);
      expect(err, url).to.include({ kind: 'unprocessable', code: 'url_not_resolvable' });
      expect(err.message, url).to.match(/does not resolve to an address \((ENOTFOUND|EAI_AGAIN|ENODATA)\)/);
    }
  });

  it('refuses a name that resolves to a private address, before and while fetching', async () => {
    expect(await rejection(assertPublicUrl('https://localhost/', guarded))).to.be.instanceOf(UrlNotAllowedError);
    const server = http.createServer((_req, res) => res.end('secret'));
    const port = await listen(server);
    try {
      const err = await rejection(guardedFetch(`http://localhost:${port}/`, { ...guarded, allowHttp: true }));
      expect(err).to.be.instanceOf(UrlNotAllowedError);
      expect(err.message).to.match(/not a public address/);
      expect((await guardedFetch(`http://localhost:${port}/`, open)).body.toString()).to.equal('secret');
    } finally {
      server.close();
    }
  });

  it("lets exactly the service's own origin through on http and loopback, and nothing else there", async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/away') return res.writeHead(302, { location: `http://localhost:${otherPort}/` }).end();
      res.end('own');
    });
    const other = http.createServer((_req, res) => res.end('other'));
    const port = await listen(server);
    const otherPort = await listen(other);
    const own: GuardedFetchOptions = { ...guarded, ownOrigin: `http://localhost:${port}` };
    try {
      expect((await guardedFetch(`http://localhost:${port}/v1/manifests/x`, own)).body.toString()).to.equal('own');
      expect(checkOutboundUrl(`http://localhost:${port}/`, own).port).to.equal(String(port));
      // Another port, another host name for the same server, another scheme, credentials, a redirect away: refused.
      for (const url of [`http://localhost:${otherPort}/`, `https://localhost:${otherPort}/`, `http://127.0.0.1:${port}/`, `https://localhost:${port}/`, `http://user:pw@localhost:${port}/`, `http://localhost:${port}/away`]) {
        expect(await rejection(guardedFetch(url, own)), url).to.be.instanceOf(UrlNotAllowedError);
      }
    } finally {
      server.close();
      other.close();
    }
  });

  describe('limits and redirects (a local server, private addresses allowed as in tests)', () => {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/big') return res.end(Buffer.alloc(4096));
      if (url.pathname === '/big-chunked') {
        res.write(Buffer.alloc(800));
        return setTimeout(() => res.end(Buffer.alloc(800)), 10);
      }
      if (url.pathname === '/hang') return;
      if (url.pathname === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (url.pathname === '/to-ok') return res.writeHead(307, { location: '/ok' }).end();
      if (url.pathname === '/to-ftp') return res.writeHead(302, { location: 'ftp://127.0.0.1/' }).end();
      res.setHeader('x-method', req.method!);
      res.end('ok');
    });
    let base = '';
    before(async () => (base = `http://127.0.0.1:${await listen(server)}`));
    after(() => {
      server.closeAllConnections();
      server.close();
    });

    it('stops at the size limit, declared or not', async () => {
      for (const p of ['/big', '/big-chunked']) {
        const err = await rejection(guardedFetch(base + p, open));
        expect(err, p).to.be.instanceOf(FetchFailedError).with.property('reason', 'too_large');
      }
    });

    it('stops at the time limit', async () => {
      const err = await rejection(guardedFetch(base + '/hang', { ...open, timeoutMs: 200 }));
      expect(err).to.be.instanceOf(FetchFailedError).with.property('reason', 'timeout');
    });

    it('follows redirects re-checked, up to the limit, or not at all', async () => {
      const followed = await guardedFetch(base + '/to-ok', { ...open, method: 'POST', body: 'x' });
      expect(followed).to.include({ status: 200, url: base + '/ok' });
      expect(followed.headers['x-method']).to.equal('POST');
      expect((await guardedFetch(base + '/to-ok', { ...open, maxRedirects: 0 })).status).to.equal(307);
      expect(await rejection(guardedFetch(base + '/loop', open))).to.be.instanceOf(FetchFailedError).with.property('reason', 'too_many_redirects');
      expect(await rejection(guardedFetch(base + '/to-ftp', open))).to.be.instanceOf(UrlNotAllowedError);
    });

    it('says a refused connection is a failed fetch', async () => {
      const closed = http.createServer();
      const port = await listen(closed);
      await new Promise((r) => closed.close(r));
      expect(await rejection(guardedFetch(`http://127.0.0.1:${port}/`, open))).to.be.instanceOf(FetchFailedError).with.property('reason', 'connect');
    });
  });

  it('speaks https to a server whose root it is given, and refuses one it does not trust', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'guard-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
      const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
      const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, (_req, res) => res.end('tls ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://localhost:${(server.address() as AddressInfo).port}/`;
      try {
        expect((await guardedFetch(url, { ...open, allowHttp: false, ca: cert })).body.toString()).to.equal('tls ok');
        expect(await rejection(guardedFetch(url, { ...open, allowHttp: false }))).to.be.instanceOf(FetchFailedError).with.property('reason', 'connect');
      } finally {
        server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
