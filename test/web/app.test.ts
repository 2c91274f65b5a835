import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { artifactsDir, dropFile, endSession, heading, launchChromium, openPage, saveScreenshot, startWebStack, tabTo, type PageLog, type WebStack } from './support.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixture = (name: string) => path.join(FIXTURES, name);

const ACCESS_KEY = 'svc_access_token';
const REFRESH_KEY = 'svc_refresh_token';

interface Session {
  context: BrowserContext;
  page: Page;
  log: PageLog;
}

const storage = (page: Page) =>
  page.evaluate(([a, r]) => ({ access: localStorage.getItem(a!), refresh: localStorage.getItem(r!) }), [ACCESS_KEY, REFRESH_KEY]);

describe('web app in headless Chromium', function () {
  this.timeout(120_000);
  let stack: WebStack;
  let browser: Browser;
  let downloadsDir: string;
  let screenshots: string;
  /** WEB_SCREENSHOTS=1 keeps a screenshot of every page at both sizes in test-artifacts/web/pages/. */
  let pages: string | undefined;
  let session: Session | undefined;
  const account = { email: `editor-${Date.now()}@example.com`, password: 'correct horse battery staple', org: 'Daily Planet' };
  const signed: { name: string; mime: 'image/png' | 'image/jpeg'; file: string }[] = [];

  async function open(viewport?: { width: number; height: number }): Promise<Session> {
    session = await openPage(browser, stack.baseUrl, { viewport });
    return session;
  }

  /** No CSP or script error, and no token in any URL the page requested or showed. */
  async function expectClean(s: Session): Promise<void> {
    expect(s.log.problems, 'CSP violations or script errors').to.deep.equal([]);
    const tokens = s.log.tokens;
    const current = await storage(s.page).catch(() => ({ access: null, refresh: null }));
    for (const t of [current.access, current.refresh]) if (t) tokens.add(t);
    for (const url of [...s.log.requests.map((r) => r.url), ...s.log.urls]) {
      expect(url).not.to.match(/eyJ[A-Za-z0-9_-]{10,}\./, 'a JWT in a URL');
      for (const t of tokens) expect(url.includes(t), `token in ${url}`).to.equal(false);
    }
  }

  async function register(page: Page): Promise<void> {
    await page.goto('/');
    await heading(page, 'Sign in').waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading(page, 'Create an account').waitFor();
    await page.getByLabel('E-mail address').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByLabel('Organisation name').fill(account.org);
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading(page, 'Sign a file').waitFor();
  }

  async function signIn(page: Page, email = account.email, password = account.password): Promise<void> {
    await page.goto('/#/signin');
    await heading(page, 'Sign in').waitFor();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /** Fills in the manifest, signs, follows the steps to the download button and saves the download. */
  async function signAndDownload(page: Page, title: string, creator: string): Promise<string> {
    await page.evaluate(() => {
      const w = window as unknown as { seenSteps: string[]; stepsObserver?: MutationObserver };
      w.stepsObserver?.disconnect();
      w.seenSteps = [];
      w.stepsObserver = new MutationObserver(() => {
        const current = document.querySelector('.progress:not([hidden]) .steps__item--current .steps__label')?.textContent;
        if (current && w.seenSteps[w.seenSteps.length - 1] !== current) w.seenSteps.push(current);
      });
      w.stepsObserver.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('Creator').fill(creator);
    await page.getByRole('button', { name: 'Sign file' }).click();
    const download = page.getByRole('button', { name: 'Download signed file' });
    await download.waitFor({ timeout: 60_000 });
    // The progress list shows every stage of the job API, and all of them done.
    const labels = await page.locator('.steps__label').allTextContents();
    expect(labels.slice(0, 4)).to.deep.equal(['Upload', 'Queued', 'Processing', 'Signed']);
    for (let i = 0; i < 4; i += 1) expect(await page.locator('.steps__item').nth(i).getAttribute('class')).to.contain('steps__item--done');
    const seen = await page.evaluate(() => (window as unknown as { seenSteps: string[] }).seenSteps);
    expect(seen[0], `steps seen: ${seen.join(', ')}`).to.equal('Upload');
    expect(await page.locator('.progress-detail').textContent()).to.match(/^Signed\./);
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const target = path.join(downloadsDir, `${signed.length}-${file.suggestedFilename()}`);
    await file.saveAs(target);
    return target;
  }

  before(async () => {
    downloadsDir = mkdtempSync(path.join(tmpdir(), 'web-downloads-'));
    screenshots = artifactsDir('app');
    pages = process.env.WEB_SCREENSHOTS === '1' ? artifactsDir('pages') : undefined;
    stack = await startWebStack();
    browser = await launchChromium();
  });
  afterEach(async function () {
    await endSession(this.currentTest, session, screenshots);
    session = undefined;
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    rmSync(downloadsDir, { recursive: true, force: true });
  });

  it('registers an organisation: tokens under the spec’s local-storage keys, never in a URL', async () => {
    const s = await open();
    await register(s.page);
    const { access, refresh } = await storage(s.page);
    expect(access).to.match(/^eyJ/);
    expect(refresh).to.match(/^eyJ/);
    expect(await s.page.locator('.account__email').textContent()).to.equal(account.email);
    expect(await s.page.locator('nav[aria-label="Main"] a').allTextContents()).to.deep.equal(['Sign', 'Verify', 'History', 'Templates', 'API keys', 'Trust anchors', 'Webhooks', 'Users', 'Audit log', 'Certificate']);
    // The app shell is served with the web app's strict CSP.
    const res = await s.page.request.get('/');
    const csp = res.headers()['content-security-policy']!;
    expect(csp).to.contain("script-src 'self'").and.not.contain('unsafe-inline');
    await expectClean(s);
  });

  it('signs a PNG picked with the keyboard and a JPEG picked with the file picker, end to end, and downloads both', async () => {
    const s = await open();
    // Listening early: Playwright turns on file-chooser interception asynchronously, and a key press sent
    // right after the listener could open the (headless, invisible) native dialog instead.
    const chooser = s.page.waitForEvent('filechooser', { timeout: 60_000 });
    await signIn(s.page);
    await heading(s.page, 'Sign a file').waitFor();

    // PNG: Tab to the drop zone's file input and open the picker with Enter.
    await tabTo(s.page, (el) => el instanceof HTMLInputElement && el.type === 'file');
    await s.page.keyboard.press('Enter');
    await (await chooser).setFiles(fixture('graphic.png'));
    await s.page.getByText('graphic.png', { exact: true }).waitFor();
    expect(await s.page.getByLabel('Title').inputValue()).to.equal('graphic');
    signed.push({ name: 'graphic.png', mime: 'image/png', file: await signAndDownload(s.page, 'Harbour at dawn', 'Jane Doe') });

    await s.page.getByRole('button', { name: 'Sign another file' }).click();
    await s.page.locator('input[type=file]').setInputFiles(fixture('photo.jpg'));
    await s.page.getByText('photo.jpg', { exact: true }).waitFor();
    signed.push({ name: 'photo.jpg', mime: 'image/jpeg', file: await signAndDownload(s.page, 'Lighthouse', 'John Roe') });

    // What was downloaded is the signed file: c2pa-rs reads it Trusted against the service root.
    for (const [i, { file, mime }] of signed.entries()) {
      expect(path.extname(file)).to.equal(mime === 'image/png' ? '.png' : '.jpg');
      const report = await readAsset(readFileSync(file), mime, { trustAnchorsPem: stack.rootPem });
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.manifest?.title).to.equal(['Harbour at dawn', 'Lighthouse'][i]);
    }
    await expectClean(s);
  });

  it('verifies the downloaded files as trusted, with manifest, signer and revocation status', async () => {
    expect(signed, 'the signing test ran first').to.have.length(2);
    const s = await open();
    await signIn(s.page);
    await s.page.getByRole('link', { name: 'Verify' }).click();
    await heading(s.page, 'Verify a file').waitFor();
    for (const [i, { file }] of signed.entries()) {
      await s.page.locator('input[type=file]').setInputFiles(file);
      const result = s.page.locator('.result-card');
      await result.getByRole('heading', { name: path.basename(file) }).waitFor();
      expect(await result.locator('.verdict__title').textContent()).to.equal('Trusted');
      const details = await result.locator('.details').first().textContent();
      expect(details).to.contain(['Harbour at dawn', 'Lighthouse'][i]).and.contain(['Jane Doe', 'John Roe'][i]);
      const text = await result.textContent();
      // Signed by the organisation's own certificate, not the service's.
      expect(text).to.contain('Daily Planet').and.contain('Not revoked').and.contain('attested by a trusted time-stamp authority');
      expect(text).to.not.contain('C2PA Signing');
      // Signed moments ago and not yet anchored (no chain in this suite): said so.
      expect(text).to.contain('Waiting for the next batch');
    }

    // A flipped byte in the image data: invalid, said in words.
    const tampered = readFileSync(signed[0]!.file);
    tampered[tampered.length - 40] = tampered[tampered.length - 40]! ^ 0x01;
    await s.page.locator('input[type=file]').setInputFiles({ name: 'tampered.png', mimeType: 'image/png', buffer: tampered });
    await s.page.locator('.result-card').getByRole('heading', { name: 'tampered.png' }).waitFor();
    expect(await s.page.locator('.verdict__title').textContent()).to.equal('Invalid');
    await s.page.getByText('The image data changed after it was signed.').waitFor();

    // An image without credentials that looks like nothing signed here.
    await s.page.locator('input[type=file]').setInputFiles(fixture('small.jpg'));
    await s.page.locator('.result-card').getByRole('heading', { name: 'small.jpg' }).waitFor();
    expect(await s.page.locator('.verdict__title').textContent()).to.equal('No Content Credentials found');

    // A copy of the signed JPEG that lost its credentials (resized, re-encoded): recovered by its fingerprint,
    // marked as not bound to the file, the two pictures side by side.
    const copy = path.join(downloadsDir, 'lighthouse-copy.jpg');
    const { width } = await sharp(signed[1]!.file).metadata();
    await sharp(signed[1]!.file).resize(Math.round(width! * 0.75)).jpeg({ quality: 70 }).toFile(copy);
    await s.page.locator('input[type=file]').setInputFiles(copy);
    const result = s.page.locator('.result-card');
    await result.getByRole('heading', { name: 'lighthouse-copy.jpg' }).waitFor();
    expect(await result.locator('.verdict__title').textContent()).to.equal('No Content Credentials in this file');
    const candidate = result.locator('.candidate').first();
    expect(await candidate.locator('.recovered-tag').textContent()).to.contain('Recovered by fingerprint — not bound to this file');
    expect(await candidate.getByRole('heading', { level: 3 }).textContent()).to.equal('Lighthouse');
    expect(await candidate.locator('.details').first().textContent()).to.contain('John Roe').and.contain('Daily Planet');
    await candidate.locator('img').nth(1).waitFor();
    expect(await candidate.locator('img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src.split(':')[0]))).to.deep.equal(['blob', 'http']);

    // Not a format the service reads, whatever its name says: the API's refusal, in words.
    const notes = path.join(downloadsDir, 'notes.jpg');
    writeFileSync(notes, 'not an image at all\n');
    await s.page.locator('input[type=file]').setInputFiles(notes);
    await s.page.getByRole('alert').filter({ hasText: 'This file type is not accepted here' }).waitFor();
    await expectClean(s);
  });

  it('refuses what is not a format of the registry, dropped or picked, with a message, and uploads nothing', async () => {
    const s = await open({ width: 390, height: 844 });
    await signIn(s.page);
    await heading(s.page, 'Sign a file').waitFor();
    // The drop zone names every format of the registry, and its picker offers them all.
    const hint = await s.page.locator('.drop-zone__hint').textContent();
    expect(hint).to.contain('GIF').and.contain('MP4').and.contain('WAV');
    expect(await s.page.locator('input[type=file]').getAttribute('accept')).to.contain('video/mp4').and.contain('.flac');
    const bmp = path.join(downloadsDir, 'scan.bmp');
    writeFileSync(bmp, Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]));
    await dropFile(s.page, '.drop-zone', bmp, 'image/bmp');
    const alert = s.page.getByRole('alert').filter({ hasText: 'scan.bmp' });
    await alert.waitFor();
    expect(await alert.textContent()).to.equal('“scan.bmp” is a BMP image, which the service does not sign.');
    await s.page.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just notes') });
    await s.page.getByRole('alert').filter({ hasText: '“notes.txt” is not a format the service signs' }).waitFor();
    // Signing without a file says so too.
    await s.page.getByRole('button', { name: 'Sign file' }).click();
    await s.page.getByRole('alert').filter({ hasText: 'Choose a file to sign first.' }).waitFor();
    expect(s.log.requests.filter((r) => /\/v1\/media\/(upload|resumable-uploads)/.test(r.url))).to.deep.equal([]);
    await expectClean(s);
  });

  it('lists the organisation’s jobs in History with status and working downloads', async () => {
    const s = await open();
    await signIn(s.page);
    await s.page.getByRole('link', { name: 'History' }).click();
    await heading(s.page, 'History').waitFor();
    const rows = s.page.locator('tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).to.equal(2);
    expect(await rows.locator('th').allTextContents()).to.deep.equal(['Lighthouse', 'Harbour at dawn']);
    for (const status of await rows.locator('.badge').allTextContents()) expect(['Signed', 'Anchoring', 'Anchored']).to.include(status);
    const [file] = await Promise.all([s.page.waitForEvent('download'), s.page.getByRole('button', { name: 'Download “Harbour at dawn”' }).click()]);
    const target = path.join(downloadsDir, `history-${file.suggestedFilename()}`);
    await file.saveAs(target);
    expect(readFileSync(target).equals(readFileSync(signed[0]!.file))).to.equal(true);
    await expectClean(s);
  });

  it('shows anchoring as it progresses and the anchor proof with a link to the transaction', async () => {
    // The chain is not part of this suite: the service's job and verify answers are given the anchor fields
    // they carry once a batch is anchored (shared/anchoring/views.ts), the rest of each answer is real.
    const txHash = `0x${'ab'.repeat(32)}`;
    const anchor = (sha256: string, status: string) => ({
      status,
      proof_url: `http://service.example/v1/media/anchors/${sha256}`,
      root: 'cd'.repeat(32),
      chain_id: status === 'pending' ? null : 11155111,
      transaction_hash: status === 'pending' ? null : txHash,
      proof: status === 'anchored' ? { block_number: 4242, block_time: '2026-01-02T03:04:05.000Z', transaction_hash: txHash, chain_id: 11155111 } : null,
    });
    const s = await open();
    let polls = 0;
    await s.page.route(/\/v1\/media\/jobs\/[0-9a-f-]{36}\?/, async (route) => {
      const res = await route.fetch();
      const job = await res.json();
      if (job.signed_file) {
        polls += 1;
        const status = polls === 1 ? 'signed' : polls === 2 ? 'anchoring' : 'anchored';
        Object.assign(job, { status, anchor: anchor(job.signed_file.sha256, status === 'signed' ? 'pending' : status) });
      }
      await route.fulfill({ response: res, json: job });
    });
    // Chromium's interception does not hand over multipart bodies with files, so the real verify answer is
    // fetched here, for the file the page is given, with the page's own bearer token.
    let verifying = '';
    await s.page.route('**/v1/media/verify', async (route) => {
      const res = await request(stack.api.app)
        .post('/v1/media/verify')
        .set('Authorization', route.request().headers()['authorization']!)
        .attach('file', readFileSync(verifying), path.basename(verifying))
        .expect(200);
      // The verify answer's anchor: the proof, and what the chain itself said about it.
      const { proof } = anchor(res.body.sha256, 'anchored');
      const chain = { result: 'verified', checked_against: 'chain', chain_id: 11155111, transaction_hash: txHash, block_number: 4242, confirmations: 3 };
      await route.fulfill({ json: { ...res.body, anchor: { status: 'anchored', proof_url: `http://service.example/v1/media/anchors/${res.body.sha256}`, proof, chain } } });
    });
    await s.page.route(/\/v1\/media\/jobs\?/, async (route) => {
      const res = await route.fetch();
      const page = await res.json();
      for (const job of page.jobs) if (job.signed_file) Object.assign(job, { status: 'anchored', anchor: anchor(job.signed_file.sha256, 'anchored') });
      await route.fulfill({ response: res, json: page });
    });
    await signIn(s.page);
    await s.page.locator('input[type=file]').setInputFiles(fixture('graphic.png'));
    await s.page.getByLabel('Creator').fill('Jane Doe');
    await s.page.getByRole('button', { name: 'Sign file' }).click();
    await s.page.getByText('Signed and anchored on chain.').waitFor({ timeout: 60_000 });
    expect(await s.page.locator('.steps__label').allTextContents()).to.deep.equal(['Upload', 'Queued', 'Processing', 'Signed', 'Anchored']);
    expect(await s.page.locator('.steps__item--done').count()).to.equal(5);
    const explorer = `https://sepolia.etherscan.io/tx/${txHash}`;
    const link = s.page.getByRole('link', { name: 'View the transaction on a block explorer' });
    expect(await link.getAttribute('href')).to.equal(explorer);
    expect(await link.getAttribute('rel')).to.equal('noopener noreferrer');
    const anchorText = await s.page.locator('.anchor').textContent();
    expect(anchorText).to.contain('Sepolia testnet (chain 11155111)').and.contain(txHash).and.contain('4242');
    // The proof link stays on this origin, whatever address the service named.
    const proofHref = await s.page.getByRole('link', { name: 'Anchor proof (JSON)' }).getAttribute('href');
    expect(proofHref).to.match(/^\/v1\/media\/anchors\/[0-9a-f]{64}$/);
    if (pages) await saveScreenshot(s.page, pages, 'desktop-sign-anchored');

    const [file] = await Promise.all([s.page.waitForEvent('download'), s.page.getByRole('button', { name: 'Download signed file' }).click()]);
    const target = path.join(downloadsDir, `anchored-${file.suggestedFilename()}`);
    await file.saveAs(target);
    await s.page.getByRole('link', { name: 'Verify' }).click();
    // Wait for the page, or the file may go to the sign page's input still on screen.
    await heading(s.page, 'Verify a file').waitFor();
    verifying = target;
    await s.page.locator('input[type=file]').setInputFiles(target);
    await s.page.locator('.verdict').waitFor();
    expect(await s.page.getByRole('link', { name: 'View the transaction on a block explorer' }).getAttribute('href')).to.equal(explorer);
    await s.page.getByText('Verified on the chain: the file’s hash leads to the root written by this transaction (3 confirmations).').waitFor();
    if (pages) await saveScreenshot(s.page, pages, 'desktop-verify-anchored');

    await s.page.getByRole('link', { name: 'History' }).click();
    await s.page.locator('tbody tr').first().getByText('Anchored').waitFor();
    expect(await s.page.locator('tbody tr').first().getByRole('link').getAttribute('href')).to.equal(explorer);
    await expectClean(s);
  });

  it('creates an API key, shows it once with a copy button, and revokes it', async () => {
    const s = await open();
    await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    await signIn(s.page);
    await s.page.getByRole('link', { name: 'API keys' }).click();
    await heading(s.page, 'API keys').waitFor();
    await s.page.getByLabel('Key name').fill('CMS <production>');
    await s.page.getByRole('button', { name: 'Create key' }).click();
    const keyBox = s.page.getByLabel('New API key');
    await keyBox.waitFor();
    const key = await keyBox.inputValue();
    expect(key).to.match(/^svc_sk_live_/);
    await s.page.getByRole('button', { name: 'Copy key' }).click();
    await s.page.getByText('Copied to the clipboard.').waitFor();
    expect(await s.page.evaluate(() => navigator.clipboard.readText())).to.equal(key);
    // Listed by name (as text: the angle brackets are not markup) and prefix only.
    const row = s.page.locator('tbody tr').filter({ hasText: 'CMS <production>' });
    await row.getByText('Active').waitFor();
    await request(stack.api.app).get('/v1/media/jobs').set('X-API-Key', key).expect(200);

    // Shown once: after a reload the raw key is nowhere on the page.
    await s.page.reload();
    await row.waitFor();
    expect(await s.page.content()).not.to.contain(key);

    await row.getByRole('button', { name: 'Revoke “CMS <production>”' }).click();
    const dialog = s.page.getByRole('dialog');
    await dialog.getByText('Programs using this key stop working at once.').waitFor();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('Revoked').waitFor();
    await request(stack.api.app).get('/v1/media/jobs').set('X-API-Key', key).expect(401);
    await expectClean(s);
  });

  it('adds an organisation user with a role, changes the role, and removes them', async () => {
    const s = await open();
    await signIn(s.page);
    await s.page.getByRole('link', { name: 'Users' }).click();
    await heading(s.page, 'Users').waitFor();
    const email = `viewer-${Date.now()}@example.com`;
    await s.page.getByLabel('E-mail address').fill(email);
    await s.page.getByLabel('Initial password').fill('another long passphrase');
    await s.page.getByLabel('Role', { exact: true }).selectOption('signer');
    await s.page.getByRole('button', { name: 'Add user' }).click();
    const row = s.page.locator('tbody tr').filter({ hasText: email });
    await row.waitFor();
    expect(await row.getByLabel(`Role of ${email}`, { exact: true }).inputValue()).to.equal('signer');

    await row.getByLabel(`Role of ${email}`, { exact: true }).selectOption('viewer');
    await row.getByRole('button', { name: `Change the role of ${email}` }).click();
    await s.page.getByText(`${email} is now Viewer.`).waitFor();

    // The viewer signs in elsewhere and sees only what a viewer may do.
    const other = await openPage(browser, stack.baseUrl);
    try {
      await signIn(other.page, email, 'another long passphrase');
      await heading(other.page, 'Verify a file').waitFor();
      expect(await other.page.locator('nav[aria-label="Main"] a').allTextContents()).to.deep.equal(['Verify', 'History']);
      await other.page.goto('/#/keys');
      await other.page.getByText('does not include this page').waitFor();
    } finally {
      await other.context.close();
    }

    // The last admin cannot demote themselves: the reason is given in words.
    const me = s.page.locator('tbody tr').filter({ hasText: '(you)' });
    await me.getByRole('combobox').selectOption('viewer');
    await me.getByRole('button', { name: /^Change the role of / }).click();
    await s.page.getByRole('alert').filter({ hasText: 'An organisation needs at least one admin.' }).waitFor();

    await row.getByRole('button', { name: `Remove ${email}` }).click();
    await s.page.getByRole('dialog').getByRole('button', { name: 'Remove user' }).click();
    await row.waitFor({ state: 'detached' });
    await expectClean(s);
  });

  it('shows the signing certificate and who issued it, and makes a certificate request for an external CA', async () => {
    const s = await open();
    await signIn(s.page);
    await s.page.getByRole('link', { name: 'Certificate' }).click();
    await heading(s.page, 'Signing certificate').waitFor();
    await s.page.getByText('Signs', { exact: true }).waitFor();
    expect(await s.page.locator('dl.facts dd').first().textContent()).to.equal('service CA, for private deployments');
    await s.page.getByLabel('Common name (CN)').fill('Web Org Signing');
    await s.page.getByLabel('Organisation (O)').fill('Web Org');
    await s.page.getByLabel('Country (C)').fill('GB');
    await s.page.getByRole('button', { name: 'Create key and request' }).click();
    const csr = s.page.getByLabel('Certificate request (PEM)');
    await csr.waitFor();
    expect(await csr.inputValue()).to.match(/^-----BEGIN CERTIFICATE REQUEST-----/);
    await s.page.getByLabel('Certificate chain from the CA (PEM)').fill('not a chain');
    await s.page.getByRole('button', { name: 'Use this certificate' }).click();
    await s.page.getByText(/no CERTIFICATE block/).waitFor();
    await expectClean(s);
  });

  it('refreshes an expired or refused access token silently, and sends the user to sign in when the refresh fails', async () => {
    const s = await open();
    await signIn(s.page);
    const before = await storage(s.page);
    const claims = jwt.decode(before.access!) as { sub: string; org: string; role: string };
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ sub: claims.sub, org: claims.org, role: claims.role, typ: 'access', jti: randomUUID(), iat: now - 1000, exp: now - 60 }, stack.api.config.jwtSecret, { algorithm: 'HS256' });

    // Expired: refreshed before the request is sent.
    await s.page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [ACCESS_KEY, expired]);
    await s.page.getByRole('link', { name: 'History' }).click();
    await s.page.locator('tbody tr').first().waitFor();
    const afterExpired = await storage(s.page);
    expect(afterExpired.access).not.to.equal(expired);
    expect(afterExpired.refresh).not.to.equal(before.refresh);

    // Refused by the service (it is the judge, whatever the token says): refreshed and retried once.
    const forged = jwt.sign({ sub: claims.sub, org: claims.org, role: claims.role, typ: 'access', jti: randomUUID() }, 'not-the-secret', { algorithm: 'HS256', expiresIn: 900 });
    await s.page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [ACCESS_KEY, forged]);
    const refreshes = s.log.requests.filter((r) => r.url.endsWith('/auth/refresh')).length;
    await s.page.getByRole('button', { name: 'Refresh' }).click();
    for (let i = 0; i < 50 && (await storage(s.page)).access === forged; i += 1) await s.page.waitForTimeout(100);
    expect((await storage(s.page)).access).not.to.equal(forged);
    expect(s.log.requests.filter((r) => r.url.endsWith('/auth/refresh')).length).to.equal(refreshes + 1);
    await heading(s.page, 'History').waitFor();
    expect(await s.page.getByRole('alert').count()).to.equal(0);

    // The refresh token is refused too (here: an already used one): to sign in, and back after.
    await s.page.evaluate(([a, r, va, vr]) => {
      localStorage.setItem(a!, va!);
      localStorage.setItem(r!, vr!);
    }, [ACCESS_KEY, REFRESH_KEY, expired, before.refresh!]);
    await s.page.reload();
    await heading(s.page, 'Sign in').waitFor();
    await s.page.getByText('Your session has ended. Please sign in again.').waitFor();
    expect(await storage(s.page)).to.deep.equal({ access: null, refresh: null });
    await s.page.getByLabel('E-mail address').fill(account.email);
    await s.page.getByLabel('Password').fill(account.password);
    await s.page.getByRole('button', { name: 'Sign in' }).click();
    await heading(s.page, 'History').waitFor();
    await expectClean(s);
  });

  it('two tabs share one refresh (refresh tokens are single use), and sign-out in one tab signs out the other', async () => {
    const s = await open();
    await signIn(s.page);
    await s.page.getByRole('link', { name: 'History' }).click();
    await s.page.locator('tbody tr, .empty:not([hidden])').first().waitFor();
    const other = await s.context.newPage();
    const refreshes: string[] = [];
    s.context.on('request', (r) => {
      if (r.url().endsWith('/auth/refresh')) refreshes.push(r.url());
    });
    await other.goto('/#/history');
    await other.locator('tbody tr, .empty:not([hidden])').first().waitFor();

    const { access } = await storage(s.page);
    const claims = jwt.decode(access!) as { sub: string; org: string; role: string };
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ sub: claims.sub, org: claims.org, role: claims.role, typ: 'access', jti: randomUUID(), iat: now - 1000, exp: now - 60 }, stack.api.config.jwtSecret, { algorithm: 'HS256' });
    await s.page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [ACCESS_KEY, expired]);
    // Both tabs need a fresh token at the same moment.
    await Promise.all([s.page.getByRole('button', { name: 'Refresh' }).click(), other.getByRole('button', { name: 'Refresh' }).click()]);
    for (let i = 0; i < 50 && (await storage(s.page)).access === expired; i += 1) await s.page.waitForTimeout(100);
    await s.page.waitForTimeout(500);
    expect(refreshes, 'one refresh for both tabs').to.have.length(1);
    for (const page of [s.page, other]) {
      await heading(page, 'History').waitFor();
      expect(await page.getByRole('alert').count()).to.equal(0);
    }
    // Both still work: the refresh family was not revoked.
    await other.getByRole('button', { name: 'Refresh' }).click();
    await other.locator('tbody tr, .empty:not([hidden])').first().waitFor();
    expect(await storage(other)).not.to.deep.equal({ access: null, refresh: null });

    await s.page.getByRole('button', { name: 'Sign out' }).click();
    await heading(other, 'Sign in').waitFor();
    await other.getByText('You signed out in another tab.').waitFor();
    await expectClean(s);
  });

  it('signs out, and back in with the keyboard alone', async () => {
    const s = await open();
    await signIn(s.page);
    const before = await storage(s.page);
    await s.page.getByRole('button', { name: 'Sign out' }).click();
    await heading(s.page, 'Sign in').waitFor();
    await s.page.getByText('You have signed out.').waitFor();
    expect(await storage(s.page)).to.deep.equal({ access: null, refresh: null });
    // The service ended the session too: a copy of its tokens no longer works.
    await request(stack.api.app).get('/auth/me').set('Authorization', `Bearer ${before.access}`).expect(401);
    await request(stack.api.app).post('/auth/refresh').send({ refresh_token: before.refresh }).expect(401);
    // A fresh load: the first Tab reaches the skip link, which moves focus to the content and stays on the page.
    await s.page.reload();
    await heading(s.page, 'Sign in').waitFor();
    await s.page.keyboard.press('Tab');
    expect(await s.page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    await s.page.keyboard.press('Enter');
    expect(await s.page.evaluate(() => document.activeElement?.id)).to.equal('main');
    expect(new URL(s.page.url()).hash).to.equal('#/signin');

    // Pages behind sign-in send back to it.
    await s.page.goto('/#/history');
    await heading(s.page, 'Sign in').waitFor();


    await tabTo(s.page, (el) => el instanceof HTMLInputElement && el.type === 'email');
    await s.page.keyboard.type(account.email);
    await s.page.keyboard.press('Tab');
    await s.page.keyboard.type('a wrong password');
    await s.page.keyboard.press('Enter');
    await s.page.getByRole('alert').filter({ hasText: 'The e-mail address or password is incorrect.' }).waitFor();
    expect(await s.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).to.equal('password');
    await s.page.keyboard.type(account.password);
    await s.page.keyboard.press('Enter');
    // Back to where the user was heading.
    await heading(s.page, 'History').waitFor();
    await expectClean(s);
  });
  it('fits every page to a phone and a desktop screen without sideways scrolling', async () => {
    const keep = pages;
    for (const [size, viewport] of [['desktop', { width: 1280, height: 860 }], ['phone', { width: 390, height: 844 }]] as const) {
      const s = await open(viewport);
      const check = async (name: string) => {
        await s.page.evaluate(() => document.fonts.ready);
        const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} at ${size} scrolls sideways by ${overflow}px`).to.be.at.most(0);
        if (keep) await saveScreenshot(s.page, keep, `${size}-${name}`);
      };
      await s.page.goto('/#/signin');
      await heading(s.page, 'Sign in').waitFor();
      await check('signin');
      await s.page.goto('/#/register');
      await heading(s.page, 'Create an account').waitFor();
      await check('register');
      await signIn(s.page);
      await heading(s.page, 'Sign a file').waitFor();
      await check('sign');
      await s.page.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just notes') });
      await s.page.getByRole('alert').filter({ hasText: 'notes.txt' }).waitFor();
      await s.page.locator('input[type=file]').setInputFiles(fixture('photo.jpg'));
      await s.page.getByLabel('Creator').fill('A photographer with a rather long name');
      await check('sign-chosen');
      await s.page.getByRole('button', { name: 'Sign file' }).click();
      await s.page.getByRole('button', { name: 'Download signed file' }).waitFor({ timeout: 60_000 });
      await check('sign-done');
      await s.page.getByRole('link', { name: 'Verify' }).click();
      await heading(s.page, 'Verify a file').waitFor();
      await check('verify');
      await s.page.locator('input[type=file]').setInputFiles(signed[1]!.file);
      await s.page.locator('.verdict').waitFor();
      await check('verify-result');
      await s.page.getByRole('link', { name: 'History' }).click();
      await s.page.locator('tbody tr').first().waitFor();
      await check('history');
      await s.page.getByRole('link', { name: 'API keys' }).click();
      await s.page.getByLabel('Key name').fill('Phone test');
      await s.page.getByRole('button', { name: 'Create key' }).click();
      await s.page.getByLabel('New API key').waitFor();
      await s.page.locator('tbody tr').first().waitFor();
      await check('api-keys');
      await s.page.getByRole('link', { name: 'Users' }).click();
      await s.page.locator('tbody tr').first().waitFor();
      await check('users');
      await s.page.getByRole('link', { name: 'Certificate' }).click();
      await s.page.locator('dl.facts').waitFor();
      await check('signing-certificate');
      await expectClean(s);
      await s.context.close();
      session = undefined;
    }
  });
});
