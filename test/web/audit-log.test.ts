/**
 * The audit log page in headless Chromium: an admin sees their organisation's events (a failed sign-in among them,
 * by address), filters them by action, and a signer has no such page.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { addOrgUser, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { artifactsDir, endSession, heading, launchChromium, openPage, type PageLog } from './support.js';

describe('web app: audit log page', function () {
  this.timeout(120_000);
  let api: TestApi;
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let admin: Account;
  let screenshots: string;
  let session: { context: import('playwright-core').BrowserContext; page: import('playwright-core').Page; log: PageLog } | undefined;

  before(async () => {
    screenshots = artifactsDir('audit-log');
    api = await startTestApi({}, { issuer: false });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    admin = await registerAccount(api.app, 'Audited Newsroom');
    await request(api.app).post('/auth/login').send({ email: admin.email, password: 'a wrong passphrase' }).expect(401);
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
  });

  const signIn = async (page: import('playwright-core').Page, email: string, password: string) => {
    await page.goto('/#/signin');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  it("lists the organisation's events and filters them by action", async () => {
    session = await openPage(browser, baseUrl);
    const { page } = session;
    await signIn(page, admin.email, admin.password);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading(page, 'Audit log').waitFor();
    const failed = page.locator('tbody tr', { hasText: 'account.sign_in_failed' });
    await failed.waitFor();
    expect(await failed.textContent()).to.contain('anonymous (');
    expect(await page.locator('tbody tr', { hasText: 'account.registered' }).count()).to.equal(1);

    await page.getByLabel('Action').selectOption('account.sign_in');
    await page.getByRole('button', { name: 'Show' }).click();
    // The unfiltered rows stay until the filtered page replaces them: wait for one that the filter leaves out to go.
    await page.locator('tbody tr', { hasText: 'account.registered' }).waitFor({ state: 'detached' });
    await page.locator('tbody tr').first().waitFor();
    const actions = await page.locator('tbody tr td[data-label="Action"]').allTextContents();
    expect(actions.length).to.be.greaterThan(0);
    expect(new Set(actions)).to.deep.equal(new Set(['account.sign_in']));
    expect(session.log.problems).to.deep.equal([]);
  });

  it('is not offered to a signer', async () => {
    const signer = await addOrgUser(api.app, admin, 'signer');
    session = await openPage(browser, baseUrl);
    const { page } = session;
    await signIn(page, signer.email, 'a long enough passphrase');
    await page.getByRole('link', { name: 'History' }).waitFor();
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).to.equal(0);
  });
});
