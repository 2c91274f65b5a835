import path from 'node:path';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { signJobDeps, type SignJobDeps } from '../../workers/sign-job/deps.js';
import { registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeSamples, type Samples } from './samples.js';

/** A test API with its PKI, one organisation, the worker's own signing code (no timestamps) and a sample of every format. */
export interface SigningDesk {
  api: TestApi;
  acc: Account;
  rootPem: string;
  deps: SignJobDeps;
  samples: Samples;
  dir: string;
}

export async function openSigningDesk(organisation: string): Promise<SigningDesk> {
  const { dir, samples } = await makeSamples();
  return { ...(await openSigningCounter(organisation, dir)), samples, dir };
}

/**
 * The same without samples: the caller's `dir` holds the jobs' workspaces (`dir`/work) and is the caller's to remove;
 * `env`: more settings for the API (e.g. its BASE_URL).
 */
export async function openSigningCounter(organisation: string, dir: string, env: Record<string, string> = {}): Promise<Omit<SigningDesk, 'samples' | 'dir'>> {
  const api = await startTestApi({ SIGN_WITHOUT_TIMESTAMP: 'true', SIGN_ATTEMPTS: '1', ...env });
  const vault = createKeyVault(api.config);
  const rootPem = derToPem((await initPki({ knex: api.db.knex, vault, config: api.config })).root.der);
  const acc = await registerAccount(api.app, organisation);
  const deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault, events: new LocalJobEvents(), logger: createLogger('silent', 'test') }), tempDir: path.join(dir, 'work') };
  return { api, acc, rootPem, deps };
}
