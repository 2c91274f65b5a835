import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { CHROMIUM_PATH } from '../support/browser-path.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'web');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Real headless Chromium. Playwright gives every launch a fresh temporary user-data dir, and every
 * BrowserContext its own storage, so no state leaks between runs or tests.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}. The browser tests drive Debian's chromium package: ` +
        'install it with `apt-get install -y chromium` (.ci/run does this), or set CHROMIUM_PATH.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export interface WebStack {
  api: TestApi;
  server: Server;
  baseUrl: string;
  rootPem: string;
  worker: RoleProcess;
  close(): Promise<void>;
}

/**
 * The real API (Postgres, Redis/BullMQ) on a real port, the PKI initialised, the service's own time-stamp
 * authority (as the ocsp process serves it) and a worker process.
 */
export async function startWebStack(): Promise<WebStack> {
  const api = await startTestApi();
  let worker: RoleProcess | undefined;
  let server: Server | undefined;
  let tsa: TsaService | undefined;
  try {
    const vault = createKeyVault(api.config);
    const pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      server!.once('listening', resolve);
      server!.once('error', reject);
    });
    const { port } = server.address() as AddressInfo;
    worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { WORKER_CONCURRENCY: '2' });
    const running = worker;
    const srv = server;
    const runningTsa = tsa;
    return {
      api,
      server: srv,
      baseUrl: `http://127.0.0.1:${port}`,
      rootPem: derToPem(pki.root.der),
      worker: running,
      async close() {
        await running.stop();
        srv.closeAllConnections();
        await new Promise<void>((resolve) => srv.close(() => resolve()));
        await runningTsa.close();
        await api.close();
      },
    };
  } catch (err) {
    await worker?.stop();
    server?.close();
    await tsa?.close();
    await api.close();
    throw err;
  }
}

/** What a page did that a test may check: requests made, and CSP or script errors. */
export interface PageLog {
  requests: { method: string; url: string }[];
  /** Every address the page's main frame showed, including hash routes (which make no request). */
  urls: string[];
  /** Every token the service handed this page. */
  tokens: Set<string>;
  problems: string[];
}

/** A fresh context (own storage) and page, with its requests and problems recorded. */
export async function openPage(browser: Browser, baseUrl: string, options: { viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page; log: PageLog }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: options.viewport ?? { width: 1280, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  const log: PageLog = { requests: [], urls: [], tokens: new Set(), problems: [] };
  page.on('request', (r) => log.requests.push({ method: r.method(), url: r.url() }));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) log.urls.push(frame.url());
  });
  page.on('response', async (res) => {
    if (!/\/auth\/(login|register|refresh)$/.test(new URL(res.url()).pathname) || !res.ok()) return;
    const body = (await res.json().catch(() => null)) as { access_token?: string; refresh_token?: string } | null;
    for (const t of [body?.access_token, body?.refresh_token]) if (t) log.tokens.add(t);
  });
  page.on('pageerror', (err) => log.problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    const text = msg.text();
    if (/Content Security Policy|Trusted Type|TrustedHTML|TrustedScript/i.test(text) || (msg.type() === 'error' && !/Failed to load resource/.test(text))) {
      log.problems.push(`console ${msg.type()}: ${text}`);
    }
  });
  return { context, page, log };
}

/** An empty test-artifacts/web/<name>/ folder, so a run's screenshots are not mixed with an earlier run's. */
export function artifactsDir(name: string): string {
  const dir = path.join(ARTIFACTS, name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}

/** Saves a full-page screenshot (and, given a log, what the page did) in dir. */
export async function saveScreenshot(page: Page, dir: string, name: string, log?: PageLog): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^a-z0-9-]+/gi, '-').replace(/^-|-$/g, '').slice(0, 120)}.png`);
  await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
  if (log) writeFileSync(file.replace(/\.png$/, '.log'), [`url: ${page.url()}`, ...log.problems, ...log.requests.map((r) => `${r.method} ${r.url}`)].join('\n'));
  return file;
}

/** The page's main heading. */
export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });

/** Presses Tab until the focused element matches, as a keyboard user would reach it. */
export async function tabTo(page: Page, matches: (el: Element) => boolean, maxTabs = 40): Promise<void> {
  for (let i = 0; i < maxTabs; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`(${matches.toString()})(document.activeElement)`)) return;
  }
  throw new Error('the element was not reached with Tab');
}

/** Drops a file on an element through a real DataTransfer, as a drag from the desktop does. */
export async function dropFile(page: Page, selector: string, filePath: string, mime: string): Promise<void> {
  const b64 = readFileSync(filePath).toString('base64');
  const name = path.basename(filePath);
  const dataTransfer = await page.evaluateHandle(
    ({ b64, name, mime }) => {
      const bin = atob(b64);
      const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: mime }));
      return dt;
    },
    { b64, name, mime },
  );
  await page.dispatchEvent(selector, 'dragenter', { dataTransfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer });
}

/** Ends a test's browser session (afterEach): a screenshot and the page's log when the test failed, then the context. */
export async function endSession(test: Mocha.Test | undefined, session: { context: BrowserContext; page: Page; log: PageLog } | undefined, screenshots: string): Promise<void> {
  if (!session) return;
  if (test?.state === 'failed') {
    const file = await saveScreenshot(session.page, screenshots, test.title, session.log);
    console.log(`    screenshot of the failure: ${path.relative(process.cwd(), file)}`);
  }
  await session.context.close();
}
