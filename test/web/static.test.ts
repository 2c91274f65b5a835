import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { WEB_ROOT, webCspDirectives } from '../../api/web-app.js';
import { startTestApi, type TestApi } from '../support/api.js';

const APP_DIR = path.join(WEB_ROOT, 'app');
const modules = readdirSync(APP_DIR).filter((f) => f.endsWith('.js'));

function directives(header: string): Map<string, string> {
  return new Map(header.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0]!, d.slice(d.indexOf(' ') + 1)] as [string, string]));
}

describe('web app: static files and their security headers', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('serves the app shell at / with a strict CSP: scripts and styles from this origin only, Trusted Types, no framing', async () => {
    const res = await request(api.app).get('/').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).to.contain('<script type="module" src="/app/main.js"></script>');
    expect(res.headers['cache-control']).to.equal('no-cache');
    const csp = directives(res.headers['content-security-policy']!);
    expect(csp.get('default-src')).to.equal("'none'");
    expect(csp.get('script-src')).to.equal("'self'");
    expect(csp.get('script-src-attr')).to.equal("'none'");
    expect(csp.get('style-src')).to.equal("'self'");
    expect(csp.get('connect-src')).to.equal("'self'");
    expect(csp.get('img-src')).to.equal("'self' blob: data:");
    expect(csp.get('frame-ancestors')).to.equal("'none'");
    expect(csp.get('object-src')).to.equal("'none'");
    expect(csp.get('base-uri')).to.equal("'none'");
    expect(csp.get('require-trusted-types-for')).to.equal("'script'");
    expect(csp.get('trusted-types')).to.equal("'none'");
    expect(res.headers['content-security-policy']).not.to.match(/unsafe-(inline|eval)/);
    // Plain-http base URL (development): no upgrade-insecure-requests, which would send every request to https.
    expect(csp.has('upgrade-insecure-requests')).to.equal(false);
    // helmet's other headers still apply.
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['referrer-policy']).to.equal('no-referrer');
  });

  it('keeps upgrade-insecure-requests when the service is served over https', () => {
    expect(Object.keys(webCspDirectives({ baseUrl: 'https://sign.example.com' }))).to.include('upgrade-insecure-requests');
    expect(Object.keys(webCspDirectives({ baseUrl: 'http://localhost:3000' }))).not.to.include('upgrade-insecure-requests');
  });

  it('serves every module, the stylesheet and the icon under /app/ with their types and the same CSP', async () => {
    for (const file of modules) {
      const res = await request(api.app).get(`/app/${file}`).expect(200).expect('Content-Type', /javascript/);
      expect(res.headers['content-security-policy']).to.contain("script-src 'self'");
    }
    await request(api.app).get('/app/styles.css').expect(200).expect('Content-Type', /text\/css/);
    await request(api.app).get('/app/icon.svg').expect(200).expect('Content-Type', /image\/svg\+xml/);
  });

  it("serves /app/formats.js: the registry's formats, the same the API's description lists for uploads", async () => {
    const res = await request(api.app).get('/app/formats.js').expect(200).expect('Content-Type', /javascript/);
    expect(res.headers['content-security-policy']).to.contain("script-src 'self'");
    const served = (await import(`data:text/javascript,${encodeURIComponent(res.text)}`)) as { MEDIA_FORMATS: { mimeType: string }[] };
    const doc = (await request(api.app).get('/openapi.json').expect(200)).body;
    const uploadTypes = doc.paths['/v1/media/upload'].post.requestBody.content['multipart/form-data'].encoding.file.contentType.split(', ');
    expect(served.MEDIA_FORMATS.map((f) => f.mimeType)).to.deep.equal(uploadTypes);
    // Every page that offers a file picker builds it from that module.
    for (const page of ['verify.js', 'sign.js']) expect(readFileSync(path.join(APP_DIR, page), 'utf8'), page).to.contain("import { MEDIA_FORMATS } from './formats.js';");
  });

  it('leaves the API as it was: unknown paths are JSON 404s, /docs keeps helmet’s default policy', async () => {
    const missing = await request(api.app).get('/app/nope.js').expect(404);
    expect(missing.body.error.code).to.equal('not_found');
    const api404 = await request(api.app).get('/v1/nothing').expect(404);
    expect(api404.body.error.code).to.equal('not_found');
    await request(api.app).get('/app/../package.json').expect(404);
    const docs = await request(api.app).get('/docs/').expect(200);
    expect(docs.headers['content-security-policy']).to.contain("style-src 'self' https: 'unsafe-inline'");
  });

  it('has no module that writes HTML strings, evaluates code or puts a token in a URL', () => {
    expect(modules.length).to.be.greaterThan(8);
    for (const file of modules) {
      const source = readFileSync(path.join(APP_DIR, file), 'utf8');
      expect(source, file).not.to.match(/\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setTimeout\(\s*['"`]/);
      expect(source, file).not.to.match(/[?&](access_token|refresh_token|token)=/);
    }
    const html = readFileSync(path.join(WEB_ROOT, 'index.html'), 'utf8');
    expect(html).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.to.match(/\sstyle=|\son[a-z]+=/); // no inline style or handler
  });

  it('keeps tokens under the spec’s two local-storage keys', () => {
    const source = readFileSync(path.join(APP_DIR, 'api.js'), 'utf8');
    expect(source).to.contain("export const ACCESS_KEY = 'svc_access_token';");
    expect(source).to.contain("export const REFRESH_KEY = 'svc_refresh_token';");
    const all = modules.map((f) => readFileSync(path.join(APP_DIR, f), 'utf8')).join('\n');
    expect(all.match(/localStorage\.setItem\(/g)).to.have.length(2); // only tokens.store writes storage
    expect(all).not.to.match(/sessionStorage|document\.cookie/);
  });
});
