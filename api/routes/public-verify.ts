import { Router } from 'express';
import { clientSignal } from '../client-signal.js';
import type { AppContext } from '../context.js';
import { fetchByUrl } from '../media/fetch-by-url.js';
import { receiveUpload } from '../media/incoming-file.js';
import { clientAddress, type RateLimiters } from '../rate-limit.js';
import { VerificationParams, VerifyQuery, VerifyUrlInput } from '../schemas/verify.js';
import { c2paManifestLink } from '../services/manifest-repository.js';
import { crJsonReport, publicVerification, verifyPublicly } from '../services/verification.js';
import { parseBody, parseParams } from '../validation.js';

export function publicVerifyRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();

  router.post(
    '/verify',
    limits.publicApi,
    limits.publicConcurrency(async (req, res) => {
      const signal = clientSignal(res);
      const readers = { ...ctx, remoteManifests: ctx.remoteManifests.forClient(clientAddress(req)) };
      const { format } = parseParams(VerifyQuery, req.query);
      // A JSON body names the file by its URL: fetched through the outbound guard, its manifest looked for first where
      // the server's Link header says (fetchByUrl). Otherwise the file comes in the request.
      const { staged, manifest, fetched } = req.is('application/json')
        ? await fetchByUrl(ctx, readers.remoteManifests, parseBody(VerifyUrlInput, req.body).url)
        : await receiveUpload(req, ctx.staging, ctx.config.maxUploadBytes, { optionalPart: 'manifest' }).then(({ staged, optional }) => ({ staged, manifest: optional, fetched: undefined }));
      try {
        // crJSON is c2pa-rs's report as it writes it: nothing is added, and no permalink is kept for it.
        if (format === 'crjson') return void res.type('application/json').send(await crJsonReport(readers, { staged, manifest }, { signal }));
        const { result, kept } = await verifyPublicly(readers, { staged, manifest }, signal);
        res.json({ ...result, ...(fetched ? { fetched } : {}), permalink: kept ? `${ctx.config.baseUrl}/verify#${staged.sha256}` : null });
      } finally {
        await Promise.all([ctx.staging.discard(staged), manifest && ctx.staging.discard(manifest)]);
      }
    }),
  );

  router.get('/verify/:sha256', limits.publicApi, async (req, res) => {
    const { sha256 } = parseParams(VerificationParams, req.params);
    const result = await publicVerification(ctx, sha256);
    const link = await c2paManifestLink(ctx, { sha256 });
    if (link) res.setHeader('Link', link);
    res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${sha256}` });
  });

  return router;
}
