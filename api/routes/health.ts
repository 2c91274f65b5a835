import { Router } from 'express';
import type { AppContext } from '../context.js';
import { ServiceError } from '../../shared/errors.js';
import { processTrustStore, staleLists } from '../../shared/trust/store.js';
import { issuingCaKeyName } from '../services/certificates.js';

/** A readiness check that hangs (a black-holed vault or Redis) counts as failing after this long. */
const CHECK_TIMEOUT_MS = 3000;

type CheckResult = 'ok' | string;

/** Results that do not fail readiness: Redis with the in-process queue; the vault when there is no certificate (already failing). */
const PASSING: readonly CheckResult[] = ['ok', 'not used', 'not checked'];

/** Runs one check with a deadline; a failure or a timeout becomes its description. */
async function check<T>(fn: () => Promise<T | CheckResult>): Promise<T | CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([fn(), timeout]);
  } catch (err) {
    return err instanceof Error ? err.message.split('\n')[0]! : 'failed';
  } finally {
    clearTimeout(timer);
  }
}

async function databaseAnswers(ctx: AppContext): Promise<boolean> {
  try {
    await ctx.knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * Everything a sign request needs, each named: the database, the queue's Redis, the file store, the vault and a valid
 * signing CA (the sub-CA that issues every organisation's signing certificate; `signing_certificate` in the answer).
 */
async function readiness(ctx: AppContext): Promise<Record<string, CheckResult>> {
  const [database, redis, storage, signing] = await Promise.all([
    check(async () => ((await databaseAnswers(ctx)) ? 'ok' : 'unreachable')),
    // The in-process queue (`npm start` without Redis) needs none.
    ctx.signQueue.kind === 'bullmq' ? check(async () => ((await ctx.pingRedis()) ? 'ok' : 'unreachable')) : Promise.resolve<CheckResult>('not used'),
    check(async () => {
      await ctx.files.ensureReady();
      return 'ok';
    }),
    check<{ certificate: CheckResult; vault: CheckResult }>(async () => {
      // Organisations sign with their own certificates, all issued by the current sub-CA (issued on first need).
      const keyName = await issuingCaKeyName(ctx.knex);
      if (!keyName) return { certificate: 'missing', vault: 'not checked' };
      // The vault is asked for the issuing CA's key itself: reachable, and the key still there.
      const vault = await check(async () => {
        await ctx.vault.getKey(keyName);
        return 'ok';
      });
      return { certificate: 'ok', vault };
    }).then((r) => (typeof r === 'string' ? { certificate: r, vault: 'not checked' } : r)),
  ]);
  return { database, redis, storage, vault: signing.vault, signing_certificate: signing.certificate };
}

/**
 * A trust list past its next update, or lists that cannot be loaded (refused by their pins), are told here without
 * failing readiness: signing does not need them. Verification answers 503 trust_lists_unavailable meanwhile.
 */
function trustListsNotice(ctx: AppContext): { past_next_update: string[] } | { code: string; error: string } | undefined {
  try {
    const stale = staleLists(processTrustStore(ctx.config));
    return stale.length > 0 ? { past_next_update: stale } : undefined;
  } catch (err) {
    return { code: err instanceof ServiceError ? err.code : 'trust_lists_unavailable', error: (err as Error).message };
  }
}

export function healthRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const [database, redis] = await Promise.all([databaseAnswers(ctx), ctx.pingRedis().catch(() => false)]);
    // Without Redis the embedded queue still works, so only the database decides the status code.
    res.status(database ? 200 : 503).json({
      status: database ? 'ok' : 'degraded',
      database: database ? 'ok' : 'unreachable',
      redis: redis ? 'ok' : 'unreachable',
    });
  });

  router.get('/health/ready', async (_req, res) => {
    const checks = await readiness(ctx);
    const failing = Object.entries(checks).filter(([, v]) => !PASSING.includes(v)).map(([k]) => k);
    res.setHeader('Cache-Control', 'no-store');
    const body = { status: failing.length === 0 ? 'ready' : 'not_ready', failing, checks };
    const trustLists = trustListsNotice(ctx);
    res.status(failing.length === 0 ? 200 : 503).json(trustLists ? { ...body, trust_lists: trustLists } : body);
  });
  return router;
}
