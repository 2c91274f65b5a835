import type { Response } from 'express';

/**
 * Aborts when the client goes away before its answer is sent (its connection closed): work done only for that answer
 * (the verification pool's tasks) is then dropped or stopped rather than finished for nobody.
 */
export function clientSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
