import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { addOrgUser, bearer, registerAccount, type Account } from '../support/api.js';
import { artifactsDir, endSession, heading, launchChromium, openPage, saveScreenshot, startWebStack, type PageLog, type WebStack } from './support.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixture = (name: string) => path.join(FIXTURES, name);

interface Session {
  context: BrowserContext;
  page: Page;
  log: PageLog;
}

describe('web app: manifest templates in headless Chromium', function () {
  this.timeout(120_000);
  let stack: WebStack;
  let browser: Browser;
  let admin: Account;
  let downloadsDir: string;
  let screenshots: string;
  let pages: string | undefined;
  let session: Session | undefined;
  let templateId = '';

  async function open(viewport?: { width: number; height: number }): Promise<Session> {
    session = await openPage(browser, stack.baseUrl, { viewport });
    return session;
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto('/#/signin');
    await heading(page, 'Sign in').waitFor();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /** No CSP violation or script error, no token in a URL, nothing scrolling sideways. */
  async function expectClean(s: Session): Promise<void> {
    expect(s.log.problems, 'CSP violations or script errors').to.deep.equal([]);
    for (const url of [...s.log.requests.map((r) => r.url), ...s.log.urls]) {
      expect(url).not.to.match(/eyJ[A-Za-z0-9_-]{10,}\./, 'a JWT in a URL');
      for (const t of s.log.tokens) expect(url.includes(t), `token in ${url}`).to.equal(false);
    }
    const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'sideways scrolling').to.be.at.most(0);
  }

  const templates = async (acc: Account = admin) =>
    (await request(stack.api.app).get('/v1/manifest-templates').set(bearer(acc.access)).expect(200)).body.templates as {
      template_id: string;
      name: string;
      version: number;
      manifest: Record<string, unknown>;
      manifest_placement: string | null;
      discoverable: boolean | null;
      soft_binding: boolean | null;
      identity: unknown;
    }[];

  before(async () => {
    downloadsDir = mkdtempSync(path.join(tmpdir(), 'web-templates-'));
    screenshots = artifactsDir('templates');
    pages = process.env.WEB_SCREENSHOTS === '1' ? artifactsDir('template-pages') : undefined;
    stack = await startWebStack();
    browser = await launchChromium();
    admin = await registerAccount(stack.api.app, 'Daily Planet');
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

  it('an admin creates a template with publisher, copyright, AI choices and a thumbnail, then edits it into version 2', async () => {
    const s = await open();
    await signIn(s.page, admin.email, admin.password);
    expect(await s.page.locator('nav[aria-label="Main"] a').allTextContents()).to.deep.equal(['Sign', 'Verify', 'History', 'Templates', 'API keys', 'Trust anchors', 'Webhooks', 'Users', 'Audit log', 'Certificate']);
    await s.page.getByRole('link', { name: 'Templates' }).click();
    await heading(s.page, 'Manifest templates').waitFor();
    await s.page.getByText('No templates yet.').waitFor();

    await s.page.getByLabel('Template name').fill('Wire <desk>');
    await s.page.getByLabel('Creator', { exact: true }).fill('Planet Staff');
    await s.page.getByLabel('Publisher', { exact: true }).fill('Daily Planet');
    await s.page.getByLabel('Publisher website').fill('https://planet.example/');
    await s.page.getByLabel('Copyright notice').fill('© 2025 Daily Planet');
    await s.page.getByLabel('Training generative AI', { exact: true }).selectOption('notAllowed');
    // Conditions are asked for only when a use is allowed on conditions.
    const conditions = s.page.getByLabel('Conditions for data mining');
    expect(await conditions.isVisible()).to.equal(false);
    await s.page.getByLabel('Data mining', { exact: true }).selectOption('constrained');
    await conditions.fill('licensing@planet.example');
    await s.page.getByLabel('Embed a thumbnail').check();
    await s.page.getByRole('button', { name: 'Create template' }).click();
    await s.page.getByText('The template “Wire <desk>” was created.').waitFor();
    // Listed by name as text (the angle brackets are not markup), with its version and what it sets.
    const row = s.page.locator('tbody tr').filter({ hasText: 'Wire <desk>' });
    await row.waitFor();
    expect(await row.locator('td[data-label="Version"]').textContent()).to.equal('1');
    const summary = await row.locator('td[data-label="Defaults"]').textContent();
    expect(summary).to.contain('creator Planet Staff').and.contain('publisher Daily Planet').and.contain('Training generative AI: not allowed').and.contain('thumbnail');

    const [saved] = await templates();
    templateId = saved!.template_id;
    expect(saved!.manifest).to.deep.equal({
      creator: 'Planet Staff',
      publisher: { name: 'Daily Planet', url: 'https://planet.example/' },
      copyrightNotice: '© 2025 Daily Planet',
      trainingMining: { 'cawg.ai_generative_training': { use: 'notAllowed' }, 'cawg.data_mining': { use: 'constrained', constraint_info: 'licensing@planet.example' } },
      thumbnail: true,
    });
    // Where the manifest is kept: in the file unless the admin says otherwise.
    expect(saved!.manifest_placement).to.equal('embedded');

    // Edit: the form is filled with the template, and saving makes version 2.
    await row.getByRole('button', { name: 'Edit “Wire <desk>”' }).click();
    await s.page.getByRole('heading', { name: 'Edit “Wire <desk>”' }).waitFor();
    expect(await s.page.getByLabel('Creator', { exact: true }).inputValue()).to.equal('Planet Staff');
    expect(await s.page.getByLabel('Data mining', { exact: true }).inputValue()).to.equal('constrained');
    expect(await conditions.inputValue()).to.equal('licensing@planet.example');
    await s.page.getByLabel('Copyright notice').fill('© 2026 Daily Planet');
    await s.page.getByRole('button', { name: 'Save as version 2' }).click();
    await s.page.getByText('“Wire <desk>” was saved as version 2.').waitFor();
    await row.locator('td[data-label="Version"]').getByText('2', { exact: true }).waitFor();
    await s.page.getByRole('heading', { name: 'Create a template' }).waitFor();
    const [v2] = await templates();
    expect(v2).to.deep.include({ version: 2 });
    expect(v2!.manifest.copyrightNotice).to.equal('© 2026 Daily Planet');
    expect(v2!.manifest.trainingMining).to.deep.equal(saved!.manifest.trainingMining);

    // A second name that is taken is refused in words.
    await s.page.getByLabel('Template name').fill('Wire <desk>');
    await s.page.getByRole('button', { name: 'Create template' }).click();
    await s.page.getByRole('alert').filter({ hasText: 'already has a template with this name' }).waitFor();
    if (pages) await saveScreenshot(s.page, pages, 'desktop-templates');
    await expectClean(s);
  });

  it('a signer chooses the template on Sign and enters only a title: the file carries the template’s credentials', async () => {
    const signer = await addOrgUser(stack.api.app, admin, 'signer');
    const s = await open();
    await signIn(s.page, signer.email, 'a long enough passphrase');
    await heading(s.page, 'Sign a file').waitFor();
    // Signers read templates but do not manage them.
    expect(await s.page.locator('nav[aria-label="Main"] a').allTextContents()).to.deep.equal(['Sign', 'Verify', 'History']);
    const sent: Record<string, unknown>[] = [];
    s.page.on('request', (r) => {
      if (r.url().endsWith('/v1/media/sign')) sent.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
    });
    await s.page.locator('input[type=file]').setInputFiles(fixture('photo.jpg'));
    await s.page.getByText('photo.jpg', { exact: true }).waitFor();
    await s.page.getByLabel('Template').selectOption({ label: 'Wire <desk>' });
    // Choosing it fills nothing in; it says what the template gives, and that creator may be left empty.
    expect(await s.page.getByLabel('Creator').inputValue()).to.equal('');
    await s.page.getByText('Optional: the template gives “Planet Staff”.').waitFor();
    await s.page.getByText(/From the template: creator Planet Staff; publisher Daily Planet/).waitFor();
    await s.page.getByLabel('Title').fill('Harbour at dawn');
    await s.page.getByRole('button', { name: 'Sign file' }).click();
    const download = s.page.getByRole('button', { name: 'Download signed file' });
    await download.waitFor({ timeout: 60_000 });
    expect(sent).to.deep.equal([{ upload_id: sent[0]!.upload_id, manifest: { title: 'Harbour at dawn' }, template_id: templateId }]);
    const [file] = await Promise.all([s.page.waitForEvent('download'), download.click()]);
    const target = path.join(downloadsDir, `template-${file.suggestedFilename()}`);
    await file.saveAs(target);

    const report = await readAsset(readFileSync(target), 'image/jpeg', { trustAnchorsPem: stack.rootPem });
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(report.manifest).to.deep.include({
      title: 'Harbour at dawn',
      creator: 'Planet Staff',
      publisher: 'Daily Planet',
      copyright_notice: '© 2026 Daily Planet',
      thumbnail: { format: 'image/jpeg' },
    });
    expect(report.manifest?.training_mining).to.deep.equal({ 'cawg.ai_generative_training': { use: 'notAllowed' }, 'cawg.data_mining': { use: 'constrained', constraint_info: 'licensing@planet.example' } });
    const jobs = (await request(stack.api.app).get('/v1/media/jobs').set(bearer(admin.access)).expect(200)).body.jobs;
    expect(jobs[0].template).to.deep.equal({ id: templateId, version: 2 });

    // What the creator field says replaces the template's; "No template" needs a creator again.
    await s.page.getByRole('button', { name: 'Sign another file' }).click();
    await s.page.getByLabel('Template').selectOption({ label: 'No template' });
    await s.page.locator('input[type=file]').setInputFiles(fixture('graphic.png'));
    await s.page.getByLabel('Title').fill('No creator');
    await s.page.getByRole('button', { name: 'Sign file' }).click();
    await s.page.getByRole('alert').filter({ hasText: 'Enter the creator.' }).waitFor();
    await s.page.getByLabel('Template').selectOption({ label: 'Wire <desk>' });
    await s.page.getByLabel('Creator').fill('Jane Doe');
    await s.page.getByRole('button', { name: 'Sign file' }).click();
    await s.page.getByRole('button', { name: 'Download signed file' }).waitFor({ timeout: 60_000 });
    expect(sent[1]).to.deep.include({ manifest: { title: 'No creator', creator: 'Jane Doe' }, template_id: templateId });

    // Verify shows the template's credentials in words.
    await s.page.getByRole('link', { name: 'Verify' }).click();
    await heading(s.page, 'Verify a file').waitFor();
    await s.page.locator('input[type=file]').setInputFiles(target);
    const details = s.page.locator('.result-card .details').first();
    await details.waitFor();
    const text = await details.textContent();
    expect(text).to.contain('Daily Planet').and.contain('© 2026 Daily Planet').and.contain('Training generative AI: not allowed').and.contain('Data mining: allowed only on conditions (licensing@planet.example)');
    await expectClean(s);
  });

  it('fits a phone: the Templates page and the Sign page with a template, without sideways scrolling', async () => {
    const s = await open({ width: 390, height: 844 });
    await signIn(s.page, admin.email, admin.password);
    await heading(s.page, 'Sign a file').waitFor();
    await s.page.getByLabel('Template').waitFor();
    await s.page.getByLabel('Template').selectOption({ label: 'Wire <desk>' });
    await expectClean(s);
    if (pages) await saveScreenshot(s.page, pages, 'phone-sign-template');
    await s.page.getByRole('link', { name: 'Templates' }).click();
    await s.page.locator('tbody tr').first().waitFor();
    await s.page.getByLabel('Data mining', { exact: true }).selectOption('constrained');
    await expectClean(s);
    if (pages) await saveScreenshot(s.page, pages, 'phone-templates');
  });

  it('deletes a template with the keyboard through a modal confirmation; jobs keep naming it; viewers see no Templates page', async () => {
    const s = await open();
    await signIn(s.page, admin.email, admin.password);
    await s.page.getByRole('link', { name: 'Templates' }).click();
    const row = s.page.locator('tbody tr').filter({ hasText: 'Wire <desk>' });
    const remove = row.getByRole('button', { name: 'Delete “Wire <desk>”' });
    await remove.focus();
    await s.page.keyboard.press('Enter');
    const dialog = s.page.getByRole('dialog');
    await dialog.getByText('Signers can no longer choose it.').waitFor();
    // Escape cancels, and focus returns to the button.
    await s.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await s.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).to.equal('Delete “Wire <desk>”');
    expect(await templates()).to.have.length(1);
    await s.page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await s.page.evaluate(() => document.activeElement?.textContent)).to.equal('Cancel');
    await s.page.keyboard.press('Tab');
    expect(await s.page.evaluate(() => document.activeElement?.textContent)).to.equal('Delete template');
    await s.page.keyboard.press('Enter');
    await row.waitFor({ state: 'detached' });
    await s.page.getByText('No templates yet.').waitFor();
    expect(await templates()).to.deep.equal([]);
    const jobs = (await request(stack.api.app).get('/v1/media/jobs').set(bearer(admin.access)).expect(200)).body.jobs as { template: unknown }[];
    expect(jobs.map((j) => j.template)).to.deep.equal([
      { id: templateId, version: 2 },
      { id: templateId, version: 2 },
    ]);
    // No templates left: Sign shows no template choice.
    await s.page.getByRole('link', { name: 'Sign', exact: true }).click();
    await heading(s.page, 'Sign a file').waitFor();
    await s.page.waitForLoadState('networkidle');
    expect(await s.page.getByLabel('Template').isVisible()).to.equal(false);
    await expectClean(s);

    const viewer = await addOrgUser(stack.api.app, admin, 'viewer');
    const other = await openPage(browser, stack.baseUrl);
    try {
      await signIn(other.page, viewer.email, 'a long enough passphrase');
      expect(await other.page.locator('nav[aria-label="Main"] a').allTextContents()).to.deep.equal(['Verify', 'History']);
      await other.page.goto('/#/templates');
      await other.page.getByText('does not include this page').waitFor();
    } finally {
      await other.context.close();
    }
  });

  it('shows and sets where a template keeps the manifest, and a save from the form keeps the settings it does not show', async () => {
    const created = await request(stack.api.app)
      .post('/v1/manifest-templates')
      .set(bearer(admin.access))
      .send({ name: 'Archive', manifest: { creator: 'Archive desk' }, discoverable: false, soft_binding: true, identity: { roles: ['cawg.publisher'] } })
      .expect(201);
    expect(created.body.manifest_placement).to.equal(null);
    const s = await open();
    await signIn(s.page, admin.email, admin.password);
    await s.page.getByRole('link', { name: 'Templates' }).click();
    const row = s.page.locator('tbody tr').filter({ hasText: 'Archive' });
    await row.getByRole('button', { name: 'Edit “Archive”' }).click();
    await s.page.getByRole('heading', { name: 'Edit “Archive”' }).waitFor();
    const placement = s.page.getByLabel('Where the manifest is kept');
    // No choice of its own reads as the default: in the file.
    expect(await placement.inputValue()).to.equal('embedded');
    await placement.selectOption({ label: 'On this service (remote manifest)' });
    await s.page.getByRole('button', { name: 'Save as version 2' }).click();
    await s.page.getByText('“Archive” was saved as version 2.').waitFor();
    await row.locator('td[data-label="Defaults"]').getByText('manifest kept on this service').waitFor();
    const [saved] = await templates();
    expect(saved).to.deep.include({ version: 2, manifest_placement: 'remote', discoverable: false, soft_binding: true, identity: { roles: ['cawg.publisher'] } });

    // Editing again shows the choice; the Sign page says what the template does.
    await row.getByRole('button', { name: 'Edit “Archive”' }).click();
    expect(await placement.inputValue()).to.equal('remote');
    await s.page.getByRole('link', { name: 'Sign', exact: true }).click();
    await heading(s.page, 'Sign a file').waitFor();
    await s.page.getByLabel('Template').selectOption({ label: 'Archive' });
    await s.page.getByText(/From the template: creator Archive desk; manifest kept on this service/).waitFor();
    await expectClean(s);
  });
});
