/**
 * The public verify page (/verify) in real headless Chromium, against the real API, Postgres, Redis and a worker
 * process: a JPEG is signed through the API first; then, without signing in, a re-encoded and resized copy is
 * recovered by its fingerprint (marked as not bound to the file, beside a thumbnail of the signed image), the
 * signed file itself reads Trusted, an unrelated image has no credentials, and the permalink shows the stored
 * result in a new page. Errors (429 with Retry-After, 413, 415, the network) are said in words.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import request from 'supertest';
import { downloadFile, registerAccount, submitSign, waitForJob, type Account } from '../support/api.js';
import { noisePng } from '../support/noise-png.js';
import { artifactsDir, dropFile, endSession, heading, launchChromium, openPage, saveScreenshot, startWebStack, tabTo, type PageLog, type WebStack } from './support.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixture = (name: string) => path.join(FIXTURES, name);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const PAGE_TITLE = 'Check a file’s Content Credentials';
const RECOVERED_LABEL = 'Recovered by fingerprint — not bound to this file';

interface Session {
  context: BrowserContext;
  page: Page;
  log: PageLog;
  /** Requests that carried an Authorization header (there must be none on this page). */
  authorized: string[];
}

/** Waits until every image in the locator's subtree has loaded, and returns their natural widths. */
async function loadedWidths(page: Page, selector: string): Promise<number[]> {
  await page.waitForFunction((sel) => {
    const imgs = Array.from(document.querySelectorAll<HTMLImageElement>(sel));
    return imgs.length > 0 && imgs.every((i) => i.complete);
  }, selector);
  return page.$$eval(selector, (imgs) => (imgs as HTMLImageElement[]).map((i) => i.naturalWidth));
}

describe('public verify page (/verify) in headless Chromium', function () {
  this.timeout(180_000);
  let stack: WebStack;
  let browser: Browser;
  let account: Account;
  let dir: string;
  let screenshots: string;
  /** WEB_SCREENSHOTS=1 keeps screenshots at 1280 and 390 px in test-artifacts/web/public-verify-pages/. */
  let pages: string | undefined;
  let session: Session | undefined;
  const files = { signed: '', copy: '', unrelated: '', text: '' };
  let signedBytes: Buffer;
  let copyBytes: Buffer;
  let manifestId = '';

  async function open(viewport?: { width: number; height: number }): Promise<Session> {
    const { context, page, log } = await openPage(browser, stack.baseUrl, { viewport });
    const authorized: string[] = [];
    page.on('request', (r) => {
      if (r.headers()['authorization']) authorized.push(r.url());
    });
    session = { context, page, log, authorized };
    return session;
  }

  async function openVerify(viewport?: { width: number; height: number }, hash = ''): Promise<Session> {
    const s = await open(viewport);
    await s.page.goto(`/verify${hash}`);
    await s.page.getByRole('heading', { level: 1, name: PAGE_TITLE }).waitFor();
    return s;
  }

  /** No CSP violation or script error, no credential anywhere, nothing scrolling sideways. */
  async function expectClean(s: Session): Promise<void> {
    expect(s.log.problems, 'CSP violations or script errors').to.deep.equal([]);
    expect(s.authorized, 'requests with credentials').to.deep.equal([]);
    for (const url of [...s.log.requests.map((r) => r.url), ...s.log.urls]) {
      expect(url).not.to.match(/eyJ[A-Za-z0-9_-]{10,}\./, 'a JWT in a URL');
      expect(url).not.to.match(/[?&#](access_token|refresh_token|token)=/i, 'a token in a URL');
      expect(url.includes(account.access) || url.includes(account.refresh), `token in ${url}`).to.equal(false);
    }
    expect(s.log.requests.filter((r) => new URL(r.url).pathname.startsWith('/auth/')), 'no session on this page').to.deep.equal([]);
    const stored = await s.page.evaluate(() => Object.keys(localStorage));
    expect(stored, 'nothing stored in the browser').to.deep.equal([]);
    const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'sideways scrolling').to.be.at.most(0);
  }

  async function sign(acc: Account, bytes: Buffer, name: string, title: string, creator: string): Promise<Buffer> {
    const app = stack.api.app;
    const job = await waitForJob(app, acc, await submitSign(app, acc, bytes, name, { title, creator }));
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    return downloadFile(app, acc, job.signed_file.download_url);
  }

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'web-public-verify-'));
    screenshots = artifactsDir('public-verify');
    pages = process.env.WEB_SCREENSHOTS === '1' ? artifactsDir('public-verify-pages') : undefined;
    stack = await startWebStack();
    browser = await launchChromium();
    // Signed through the API: register, (the stack has initialised the PKI), upload, sign, download.
    account = await registerAccount(stack.api.app, 'Daily Planet');
    signedBytes = await sign(account, readFileSync(fixture('photo.jpg')), 'harbour.jpg', 'Harbour at dawn', 'Jane Doe');
    manifestId = (await request(stack.api.app).post('/v1/verify').attach('file', signedBytes, 'signed.jpg').expect(200)).body.active_manifest;
    expect(manifestId).to.match(/^urn:/);
    // What a platform does to an upload: resized to 50%, re-encoded at quality 75, metadata (and manifest) gone.
    const { width } = await sharp(signedBytes).metadata();
    copyBytes = await sharp(signedBytes).resize(Math.round(width! / 2)).jpeg({ quality: 75 }).toBuffer();
    files.signed = path.join(dir, 'harbour-signed.jpg');
    files.copy = path.join(dir, 'harbour-copy.jpg');
    files.unrelated = path.join(dir, 'noise.jpg');
    files.text = path.join(dir, 'notes.jpg');
    writeFileSync(files.signed, signedBytes);
    writeFileSync(files.copy, copyBytes);
    writeFileSync(files.unrelated, await sharp(noisePng(320, 240)).jpeg().toBuffer());
    writeFileSync(files.text, 'not an image at all, whatever the name says\n');
  });
  afterEach(async function () {
    await endSession(this.currentTest, session, screenshots);
    session = undefined;
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is served at /verify with the web app’s strict CSP, and links to sign in', async () => {
    const res = await request(stack.api.app).get('/verify').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).to.contain('<script type="module" src="/app/public-verify.js"></script>');
    expect(res.headers['cache-control']).to.equal('no-cache');
    const csp = res.headers['content-security-policy']!;
    expect(csp).to.contain("img-src 'self' blob: data:").and.contain("require-trusted-types-for 'script'").and.contain("trusted-types 'none'");
    expect(csp).not.to.match(/unsafe-(inline|eval)/);
    expect(res.text).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.text).not.to.match(/\sstyle=|\son[a-z]+=/);

    const s = await openVerify();
    const signIn = s.page.getByRole('banner').getByRole('link', { name: 'Sign in' });
    expect(await signIn.getAttribute('href')).to.equal('/#/signin');
    // The file input is the labelled drop zone; the small print says what is kept.
    await s.page.getByLabel('Drop an image, video or audio file to check it').waitFor({ state: 'attached' });
    expect(await s.page.locator('.small-print').textContent()).to.contain('only its SHA-256 hash and the result are kept');
    // And the signed-in app links here.
    await s.page.goto('/#/signin');
    await s.page.getByRole('link', { name: 'Public image check (no account)' }).click();
    await s.page.getByRole('heading', { level: 1, name: PAGE_TITLE }).waitFor();
    await expectClean(s);
  });

  it('recovers a re-encoded, resized copy picked with the keyboard: the organisation, the “not bound” label, the two pictures side by side', async () => {
    const s = await openVerify();
    const chooser = s.page.waitForEvent('filechooser', { timeout: 30_000 });
    await tabTo(s.page, (el) => el instanceof HTMLInputElement && el.type === 'file');
    await s.page.keyboard.press('Enter');
    await (await chooser).setFiles(files.copy);

    const result = s.page.locator('.result-card');
    await result.getByRole('heading', { level: 2, name: 'harbour-copy.jpg' }).waitFor({ timeout: 30_000 });
    // Focus moves to the result; the live region says what was found.
    expect(await s.page.evaluate(() => document.activeElement?.id)).to.equal('verify-result-title');
    expect(await s.page.getByRole('status').filter({ hasText: 'Result:' }).textContent()).to.contain('recovered by fingerprint, not bound to this file');
    expect(await result.locator('.verdict__title').first().textContent()).to.equal('No Content Credentials in this file');

    const candidate = result.locator('.candidate').first();
    expect(await candidate.locator('.recovered-tag').textContent()).to.contain(RECOVERED_LABEL);
    expect(await candidate.getByRole('heading', { level: 3 }).textContent()).to.equal('Harbour at dawn');
    const details = (await candidate.locator('.details').first().textContent())!;
    expect(details).to.contain('Jane Doe').and.contain('Signed byDaily Planet').and.contain('Waiting for the next batch').and.contain('% similar').and.contain('of 64 fingerprint bits differ');
    expect(details).to.contain('Not revoked');
    // The stored manifest alone cannot match these bytes (its hard binding): not called broken for that.
    expect(details).to.contain('Intact, made with a certificate this service trusts.');
    expect(details).to.not.contain('Broken');
    // Side by side: the local preview (blob:) and the signed image's thumbnail from this origin, both loaded.
    const preview = candidate.getByRole('img', { name: 'The image you checked' });
    const thumb = candidate.getByRole('img', { name: /^The signed image these credentials belong to/ });
    expect(await preview.getAttribute('src')).to.match(/^blob:/);
    expect(await thumb.getAttribute('src')).to.equal(`/v1/manifests/${encodeURIComponent(manifestId)}/thumbnail`);
    const widths = await loadedWidths(s.page, '.candidate img');
    expect(widths).to.have.length(2);
    for (const w of widths) expect(w).to.be.greaterThan(0);
    const boxes = await Promise.all([preview.boundingBox(), thumb.boundingBox()]);
    expect(Math.abs(boxes[0]!.y - boxes[1]!.y), 'side by side').to.be.lessThan(2);
    expect(boxes[1]!.x).to.be.greaterThan(boxes[0]!.x + boxes[0]!.width);

    // The permalink: the address became /verify#<sha256> without a reload, and can be copied.
    const hash = sha256(copyBytes);
    expect(s.page.url()).to.equal(`${stack.baseUrl}/verify#${hash}`);
    const link = s.page.getByLabel('Permalink to this result');
    expect(await link.inputValue()).to.equal(`${stack.baseUrl}/verify#${hash}`);
    await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    await s.page.getByRole('button', { name: 'Copy link' }).click();
    await s.page.getByText('Link copied to the clipboard.').waitFor();
    expect(await s.page.evaluate(() => navigator.clipboard.readText())).to.equal(`${stack.baseUrl}/verify#${hash}`);
    expect(s.log.requests.filter((r) => r.url.endsWith('/v1/verify')).map((r) => r.method)).to.deep.equal(['POST']);
    await expectClean(s);
  });

  it('reads the signed file itself as Trusted, with its organisation, and an unrelated image (dropped) as without credentials', async () => {
    const s = await openVerify();
    const input = s.page.locator('input[type=file]');
    await input.setInputFiles(files.signed);
    const result = s.page.locator('.result-card');
    await result.getByRole('heading', { level: 2, name: 'harbour-signed.jpg' }).waitFor({ timeout: 30_000 });
    expect(await result.locator('.verdict__title').textContent()).to.equal('Trusted');
    const text = (await result.textContent())!;
    expect(text).to.contain('Harbour at dawn').and.contain('Jane Doe').and.contain('Daily Planet').and.contain('Not revoked');
    expect(text).not.to.contain(RECOVERED_LABEL);
    expect(await result.locator('.candidate').count()).to.equal(0);
    expect(s.page.url()).to.equal(`${stack.baseUrl}/verify#${sha256(signedBytes)}`);

    await dropFile(s.page, '.drop-zone', files.unrelated, 'image/jpeg');
    await result.getByRole('heading', { level: 2, name: 'noise.jpg' }).waitFor({ timeout: 30_000 });
    expect(await result.locator('.verdict__title').textContent()).to.equal('No Content Credentials found');
    await s.page.getByRole('status').filter({ hasText: 'Result: No Content Credentials found.' }).waitFor();
    expect(await result.locator('.candidate').count()).to.equal(0);
    expect(s.page.url()).to.equal(`${stack.baseUrl}/verify#${sha256(readFileSync(files.unrelated))}`);
    await expectClean(s);
  });

  it('a file checked with a sidecar: its verdict, and no permalink (the page says why); the address names no result', async () => {
    const s = await openVerify();
    await s.page.getByRole('button', { name: 'Add its sidecar manifest (.c2pa), optional' }).click();
    await s.page.getByLabel('Sidecar manifest (.c2pa), sent with the file:').setInputFiles(fixture('c2pa-samples/cloud_manifest.c2pa'));
    await s.page.locator('.drop-zone__input').setInputFiles(files.signed);
    const result = s.page.locator('.result-card');
    await result.getByRole('heading', { level: 2, name: 'harbour-signed.jpg' }).waitFor({ timeout: 30_000 });
    expect(await result.locator('.verdict__title').textContent()).to.equal('Invalid');
    expect(await s.page.getByLabel('Permalink to this result').count()).to.equal(0);
    await result.getByText('No permalink: this result was read from a manifest outside the file').waitFor();
    expect(s.page.url()).to.equal(`${stack.baseUrl}/verify`);
    // The signed file's own permalink still shows what the file alone proves.
    const kept = await request(stack.api.app).get(`/v1/verify/${sha256(signedBytes)}`).expect(200);
    expect(kept.body.validation_state).to.equal('Trusted');
    await expectClean(s);
  });

  it('reads a signed video as Trusted with its duration; a changed byte of its video data as Invalid, said in words', async () => {
    const clip = path.join(dir, 'clip.mp4');
    await promisify(execFile)('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25:duration=2.5', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', clip]);
    const signedClip = await sign(account, readFileSync(clip), 'clip.mp4', 'Harbour by night', 'Jane Doe');
    const signedPath = path.join(dir, 'clip-signed.mp4');
    writeFileSync(signedPath, signedClip);
    const s = await openVerify();
    const input = s.page.locator('input[type=file]');
    await input.setInputFiles(signedPath);
    const result = s.page.locator('.result-card');
    await result.getByRole('heading', { level: 2, name: 'clip-signed.mp4' }).waitFor({ timeout: 30_000 });
    expect(await result.locator('.verdict__title').textContent()).to.equal('Trusted');
    const text = (await result.textContent())!;
    expect(text).to.contain('Harbour by night').and.contain('Daily Planet').and.contain('Duration0:02.5');
    expect(text).to.contain('video/mp4');

    // One byte in the middle of the media data (the mdat box), far from the manifest.
    const tampered = Buffer.from(signedClip);
    const mdat = tampered.indexOf('mdat');
    const at = mdat + 4 + Math.floor((tampered.readUInt32BE(mdat - 4) - 8) / 2);
    tampered[at] = tampered[at]! ^ 0x01;
    const tamperedPath = path.join(dir, 'clip-changed.mp4');
    writeFileSync(tamperedPath, tampered);
    await input.setInputFiles(tamperedPath);
    await result.getByRole('heading', { level: 2, name: 'clip-changed.mp4' }).waitFor({ timeout: 30_000 });
    expect(await result.locator('.verdict__title').textContent()).to.equal('Invalid');
    await result.getByText('The video data changed after it was signed.').waitFor();
    await expectClean(s);
  });

  it('opens the permalink in a new page: the same recovered result, and when it was checked', async () => {
    const hash = sha256(copyBytes);
    const s = await openVerify(undefined, `#${hash}`);
    const result = s.page.locator('.result-card');
    await result.getByRole('heading', { level: 2, name: 'Result of an earlier check' }).waitFor();
    expect(await result.locator('.result-meta').textContent()).to.match(/^Checked .*\d.*This is the stored result/);
    const candidate = result.locator('.candidate').first();
    expect(await candidate.locator('.recovered-tag').textContent()).to.contain(RECOVERED_LABEL);
    expect(await candidate.getByRole('heading', { level: 3 }).textContent()).to.equal('Harbour at dawn');
    expect(await candidate.locator('.details').first().textContent()).to.contain('Daily Planet');
    // The dropped file was not kept: its side says so, the signed image is still shown.
    expect(await candidate.locator('.compare__missing').textContent()).to.contain('Not kept');
    const [width] = await loadedWidths(s.page, '.candidate img');
    expect(width).to.be.greaterThan(0);
    expect(s.log.requests.filter((r) => r.url.includes('/v1/verify')).map((r) => `${r.method} ${new URL(r.url).pathname}`)).to.deep.equal([`GET /v1/verify/${hash}`]);
    if (pages) {
      for (const [size, viewport] of [['desktop', { width: 1280, height: 860 }], ['phone', { width: 390, height: 844 }]] as const) {
        await s.page.setViewportSize(viewport);
        await saveScreenshot(s.page, pages, `${size}-public-verify-permalink`);
      }
    }
    await expectClean(s);
  });

  it('says in words what went wrong: too many checks (Retry-After), too large, not an image, no network, an unknown permalink', async () => {
    const s = await openVerify({ width: 390, height: 844 });
    const input = s.page.locator('input[type=file]');
    const alert = s.page.getByRole('alert');

    // An unknown permalink.
    await s.page.goto(`/verify#${'0'.repeat(64)}`);
    await alert.filter({ hasText: 'No result is stored for this link' }).waitFor();

    // A file that only claims to be a JPEG is refused by the API (415), which recognises files by content.
    await input.setInputFiles(files.text);
    await alert.filter({ hasText: 'This file is not an image, video or audio format' }).waitFor();

    // The limits and the network, as the API (or its absence) answers.
    let mode: 'rate' | 'large' | 'down' = 'rate';
    await s.page.route('**/v1/verify', async (route) => {
      if (mode === 'down') return route.abort('connectionrefused');
      if (mode === 'rate') {
        return route.fulfill({ status: 429, headers: { 'Retry-After': '42', 'Content-Type': 'application/json' }, body: JSON.stringify({ error: { code: 'rate_limited', message: 'too many requests; try again later' } }) });
      }
      return route.fulfill({ status: 413, contentType: 'application/json', body: JSON.stringify({ error: { code: 'payload_too_large', message: 'the file exceeds the limit of 52428800 bytes' } }) });
    });
    await input.setInputFiles(files.copy);
    await alert.filter({ hasText: 'Too many checks from this address. Please try again in 42 seconds.' }).waitFor();
    expect(await s.page.locator('.result-card').isHidden()).to.equal(true);
    mode = 'large';
    await input.setInputFiles(files.copy);
    await alert.filter({ hasText: 'The file is too large. The limit is 50 MB.' }).waitFor();
    mode = 'down';
    await input.setInputFiles(files.copy);
    await alert.filter({ hasText: 'The service could not be reached. Check your connection and try again.' }).waitFor();
    // The drop zone is usable again after each.
    expect(await input.isDisabled()).to.equal(false);
    if (pages) await saveScreenshot(s.page, pages, 'phone-public-verify-error');
    await expectClean(s);
  });

  it('fits 1280 px and 390 px without sideways scrolling, with the recovered result and the trusted one', async () => {
    for (const [size, viewport] of [['desktop', { width: 1280, height: 860 }], ['phone', { width: 390, height: 844 }]] as const) {
      const s = await openVerify(viewport);
      if (pages) await saveScreenshot(s.page, pages, `${size}-public-verify`);
      const input = s.page.locator('input[type=file]');
      const result = s.page.locator('.result-card');
      await input.setInputFiles(files.copy);
      await result.getByRole('heading', { level: 2, name: 'harbour-copy.jpg' }).waitFor({ timeout: 30_000 });
      for (const w of await loadedWidths(s.page, '.candidate img')) expect(w).to.be.greaterThan(0);
      // The two pictures stay side by side on a phone too.
      const [a, b] = await Promise.all([s.page.locator('.compare__item').nth(0).boundingBox(), s.page.locator('.compare__item').nth(1).boundingBox()]);
      expect(Math.abs(a!.y - b!.y)).to.be.lessThan(2);
      await expectClean(s);
      if (pages) await saveScreenshot(s.page, pages, `${size}-public-verify-recovered`);
      await input.setInputFiles(files.signed);
      await result.getByRole('heading', { level: 2, name: 'harbour-signed.jpg' }).waitFor({ timeout: 30_000 });
      await expectClean(s);
      if (pages) await saveScreenshot(s.page, pages, `${size}-public-verify-trusted`);
      await s.context.close();
      session = undefined;
    }
  });
});
