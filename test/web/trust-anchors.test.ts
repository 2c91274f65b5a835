/**
 * The trust anchors page in headless Chromium: an admin pastes a partner's CA (made by OpenSSL), sees it listed with
 * its fingerprint, and the Verify page then says in words that the partner's file is trusted through the
 * organisation's own anchor; removing it makes the file untrusted again.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { artifactsDir, endSession, heading, launchChromium, openPage, type PageLog } from './support.js';

describe('web app: trust anchors page', function () {
  this.timeout(120_000);
  let api: TestApi;
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let partner: OpensslChain;
  let admin: Account;
  let signedFile: string;
  let screenshots: string;
  let session: { context: import('playwright-core').BrowserContext; page: import('playwright-core').Page; log: PageLog } | undefined;

  before(async () => {
    screenshots = artifactsDir('trust-anchors');
    partner = await makeOpensslChain({ cn: 'Partner Agency' });
    api = await startTestApi({}, { issuer: false });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    admin = await registerAccount(api.app, 'Newsroom');
    signedFile = path.join(partner.dir, 'partner.jpg');
    const photo = readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));
    const signed = await signAsset({
      bytes: new Uint8Array(photo),
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'partner.jpg', creator: 'Partner Agency' }, { sourceHasManifest: false }),
      key: partner.keys.leaf,
      chainDer: [partner.der.leaf, partner.der.subCa],
    });
    writeFileSync(signedFile, signed);
    browser = await launchChromium();
  });
  afterEach(async function () {
    await endSession(this.currentTest, session, screenshots);
    session = undefined;
  });
  after(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await api?.close();
    rmSync(partner.dir, { recursive: true, force: true });
  });

  it('adds a CA, lists it with its fingerprint, names it on the verdict, and removes it', async () => {
    session = await openPage(browser, baseUrl);
    const { page } = session;
    await page.goto('/#/signin');
    await page.getByLabel('E-mail address').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Trust anchors' }).click();
    await heading(page, 'Trust anchors').waitFor();
    await page.getByText('No trust anchors yet').waitFor();

    // A signing certificate is refused in words.
    await page.getByLabel('CA certificate (PEM)').fill(partner.pem.leaf);
    await page.getByRole('button', { name: 'Trust this CA' }).click();
    await page.getByRole('alert').filter({ hasText: 'not a CA certificate' }).waitFor();

    await page.getByLabel('Label').fill('Partner Agency');
    await page.getByLabel('CA certificate (PEM)').fill(partner.pem.root);
    await page.getByRole('button', { name: 'Trust this CA' }).click();
    const row = page.locator('tbody tr').first();
    await row.waitFor();
    const fingerprint = execFileSync('openssl', ['x509', '-in', partner.files.root, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' }).split('=')[1]!.trim();
    expect(await row.locator('code').textContent()).to.equal(fingerprint);
    expect(await row.textContent()).to.contain('Partner Agency').and.contain(admin.email);

    await page.getByRole('link', { name: 'Verify' }).click();
    await page.locator('input[type=file]').setInputFiles(signedFile);
    // The verification pool starts its first member on this request (at a lower CPU priority than the API): on a
    // loaded machine that takes a while. An error in its place is said, not waited out.
    await page.locator('.verdict, [role=alert]:not([hidden])').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('[role=alert]:not([hidden])').allTextContents(), 'alerts instead of a verdict').to.deep.equal([]);
    expect(await page.locator('.verdict').textContent()).to.contain('your organisation added');

    await page.getByRole('link', { name: 'Trust anchors' }).click();
    await page.getByRole('button', { name: 'Remove “Partner Agency”' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No trust anchors yet').waitFor();
    expect(session.log.problems).to.deep.equal([]);
  });
});
