import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { once } from 'node:events';
import express from 'express';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { collectProcessMetrics, renderMetrics } from '../metrics/registry.js';

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

function jsonError(res: express.Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

/**
 * The operator listener (OPS_PORT on OPS_HOST, loopback by default): `/metrics` (Prometheus text of this process
 * and its sandboxes) and, where the process has the BullMQ sign queue, `/queues` (Bull Board: every organisation's
 * jobs, with retry and clean). Never part of the public API and never behind its authentication: reach it from the
 * host, a private network or a scraper only.
 */
export async function startOpsServer(config: Pick<Config, 'opsPort' | 'opsHost'>, logger: Logger, options: { queue?: Queue } = {}): Promise<OpsServer> {
  collectProcessMetrics();
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res) => {
    try {
      const { contentType, body } = await renderMetrics();
      res.setHeader('Content-Type', contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.send(body);
    } catch (err) {
      logger.error({ err }, 'metrics could not be rendered');
      jsonError(res, 500, 'internal_error', 'metrics could not be rendered');
    }
  });
  if (options.queue) {
    const board = new ExpressAdapter();
    board.setBasePath('/queues');
    createBullBoard({ queues: [new BullMQAdapter(options.queue)], serverAdapter: board });
    app.use('/queues', board.getRouter());
  } else {
    app.use('/queues', (_req, res) => jsonError(res, 404, 'not_found', 'this process has no BullMQ queue (the in-process queue, or a role without one)'));
  }
  app.get('/', (_req, res) => res.json({ metrics: '/metrics', queues: options.queue ? '/queues' : null }));
  app.use((req, res) => jsonError(res, 404, 'not_found', `no route for ${req.method} ${req.path}`));
  const server: Server = app.listen(config.opsPort, config.opsHost);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.opsHost, port }, 'operator listener (metrics, queue view) ready');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
