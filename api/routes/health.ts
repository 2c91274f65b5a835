import { Router } from 'express';
import type { AppContext } from '../context.js';

async function databaseAnswers(ctx: AppContext): Promise<boolean> {
  try {
    await ctx.knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}

export function healthRouter(ctx: AppContext): Router {
  const router = Router();
  /**
   * @openapi
   * /health:
   *   get:
   *     tags: [Operations]
   *     summary: Liveness and reachability of the database and Redis
   *     responses:
   *       200: { description: All dependencies answer, content: { application/json: { schema: { $ref: '#/components/schemas/Health' } } } }
   *       503: { description: The database does not answer, content: { application/json: { schema: { $ref: '#/components/schemas/Health' } } } }
   */
  router.get('/health', async (_req, res) => {
    const [database, redis] = await Promise.all([databaseAnswers(ctx), ctx.pingRedis().catch(() => false)]);
    // Without Redis the embedded queue still works, so only the database decides the status code.
    res.status(database ? 200 : 503).json({
      status: database ? 'ok' : 'degraded',
      database: database ? 'ok' : 'unreachable',
      redis: redis ? 'ok' : 'unreachable',
    });
  });
  return router;
}
