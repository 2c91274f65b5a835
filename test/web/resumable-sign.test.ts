/**
 * The sign page's resumable upload in headless Chromium (tus-js-client's browser build): a file larger than one
 * network hiccup survives the connection being cut mid-upload, the bar counts bytes, and the upload it becomes signs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { registerAccount, type Account } from '../support/api.js';
import { startCuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { noisePng } from '../support/noise-png.js';
import { artifactsDir, endSession, heading, launchChromium, openPage, startWebStack, type PageLog, type WebStack } from './support.js';

describe('web app: resumable uploads on the sign page (headless Chromium)', function () {
  this.timeout(180_000);
  let stack: WebStack;
  let proxy: CuttingProxy;
  let browser: Browser;
  let acc: Account;
  let work: string;
  let screenshots: string;
  let session: Awaited<ReturnType<typeof openPage>> | undefined;

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'web-resumable-'));
    screenshots = artifactsDir('resumable');
    stack = await startWebStack();
    proxy = await startCuttingProxy((stack.server.address() as AddressInfo).port);
    browser = await launchChromium();
    acc = await registerAccount(stack.api.app, 'Daily Planet');
  });
  afterEach(async function () {
    await endSession(this.currentTest, session, screenshots);
    session = undefined;
  });
  after(async () => {
    await browser?.close();
    await proxy?.close();
    await stack?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const problems = (log: PageLog) => log.problems.filter((p) => !/ERR_CONNECTION|net::/.test(p));

  it('resumes an upload cut off mid-way, shows its bytes, and signs the file', async () => {
    session = await openPage(browser, `http://127.0.0.1:${proxy.port}`);
    const { page, log } = session;
    await page.goto('/#/signin');
    await heading(page, 'Sign in').waitFor();
    await page.getByLabel('E-mail address').fill(acc.email);
    await page.getByLabel('Password').fill(acc.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Sign a file').waitFor();

    const png = noisePng(1000, 1000);
    const file = path.join(work, 'harbour.png');
    writeFileSync(file, png);
    await page.locator('input[type=file]').setInputFiles(file);
    await page.getByText('PNG image · 2.9 MB').waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { details: string[] };
      w.details = [];
      new MutationObserver(() => {
        const text = document.querySelector('.progress-detail')?.textContent ?? '';
        if (w.details.at(-1) !== text) w.details.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByLabel('Creator').fill('Jane Doe');
    // The connection carrying the file is cut once, half-way through its bytes.
    proxy.cutAfter(1_500_000);
    await page.getByRole('button', { name: 'Sign file' }).click();
    await page.getByRole('button', { name: 'Download signed file' }).waitFor({ timeout: 90_000 });
    expect(proxy.cuts).to.equal(1);

    // The bar counted bytes, up to the whole file; the words said how many.
    const bar = page.locator('.upload-bar');
    expect(Number(await bar.getAttribute('max'))).to.equal(png.length);
    expect(await bar.evaluate((el) => (el as HTMLProgressElement).value)).to.equal(png.length);
    const details = await page.evaluate(() => (window as unknown as { details: string[] }).details);
    expect(details.some((d) => /^Uploading harbour\.png: [\d.]+ (KB|MB) of 2\.9 MB$/.test(d)), details.join(' | ')).to.equal(true);

    // One upload, from one session that completed; what was downloaded reads Trusted.
    const sessions = await stack.api.db.knex('upload_sessions').where({ org_id: acc.orgId });
    expect(sessions.map((s) => s.status)).to.deep.equal(['completed']);
    // Counted by the proxy: after a cut on a reused connection Chromium may send the PATCH again by itself, below the
    // page's request events.
    expect(proxy.patches).to.be.greaterThan(1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download signed file' }).click()]);
    const signed = path.join(work, 'signed.png');
    await download.saveAs(signed);
    const report = await readAsset(readFileSync(signed), 'image/png', { trustAnchorsPem: stack.rootPem });
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(problems(log), 'CSP violations or script errors').to.deep.equal([]);
  });

  it('signs a format the page refused before (a GIF)', async () => {
    session = await openPage(browser, stack.baseUrl);
    const { page, log } = session;
    await page.goto('/#/signin');
    await page.getByLabel('E-mail address').fill(acc.email);
    await page.getByLabel('Password').fill(acc.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Sign a file').waitFor();
    await page.locator('input[type=file]').setInputFiles(path.resolve('test/fixtures/tiny.gif'));
    await page.getByText('GIF image ·').waitFor();
    await page.getByLabel('Creator').fill('Jane Doe');
    await page.getByRole('button', { name: 'Sign file' }).click();
    await page.getByRole('button', { name: 'Download signed file' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('.result__file p').textContent()).to.match(/^GIF image · /);
    expect(problems(log)).to.deep.equal([]);
  });
});
