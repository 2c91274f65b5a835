import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { conflict } from '../errors.js';
import { ResumableUploads } from '../media/resumable/tus-server.js';
import { CreationHeaders, SessionParams } from '../schemas/resumable-uploads.js';
import { abandonUploadSession, assertResumableSize, findUploadSession, touchSession, uploadSessionView } from '../services/upload-sessions.js';
import { parseParams } from '../validation.js';

/**
 * Resumable uploads (tus 1.0) under /v1/media/resumable-uploads: these routes authenticate, find the caller's
 * organisation's session (404 otherwise, and once expired) and hand the request to tus (media/resumable/tus-server.ts).
 */
export function resumableUploadsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);
  const upload = requirePermission('media:upload');
  const tus = new ResumableUploads(ctx);
  const collection = '/resumable-uploads';
  const one = '/resumable-uploads/:session_id';

  const sessionOf = async (req: Request) => {
    const { session_id } = parseParams(SessionParams, req.params);
    return findUploadSession(ctx.knex, principalOf(req).orgId, session_id);
  };

  // Discovery: browsers send it without credentials, and it says nothing about anyone's uploads.
  router.options(collection, async (req, res) => {
    await tus.serve(req, res, {});
  });

  router.post(collection, auth, upload, async (req, res) => {
    const principal = principalOf(req);
    const { 'Upload-Length': size } = parseParams(CreationHeaders, {
      'Tus-Resumable': req.get('tus-resumable'),
      'Upload-Length': req.get('upload-length'),
      'Upload-Metadata': req.get('upload-metadata'),
    });
    assertResumableSize(ctx.config, size);
    const call = { principal, sessionId: randomUUID(), created: false, finishing: false };
    let status = 500;
    try {
      status = await tus.serve(req, res, call);
    } finally {
      // A creation that failed after its row was written (the store, a body cut short) leaves nothing: the client never
      // learnt the session's URL. One that reached completion was settled there.
      if (call.created && !call.finishing && status >= 300) await abandonUploadSession(ctx, call.sessionId);
    }
  });

  router.head(one, auth, upload, async (req, res) => {
    const session = await sessionOf(req);
    if (session.status === 'receiving') {
      await tus.serve(req, res, { principal: principalOf(req) });
      return;
    }
    // Completed (or being completed): all bytes are in, so a client that lost the last answer stops sending.
    const size = String(session.size);
    res.set({ 'Tus-Resumable': '1.0.0', 'Upload-Offset': size, 'Upload-Length': size, 'Cache-Control': 'no-store' }).status(200).end();
  });

  router.patch(one, auth, upload, async (req, res) => {
    const session = await sessionOf(req);
    if (session.status !== 'receiving') throw conflict('the upload is complete: GET the session for the upload it became', 'upload_complete');
    await touch(res, session.id);
    await tus.serve(req, res, {
      principal: principalOf(req),
      // A long PATCH: the session expires UPLOAD_EXPIRY_HOURS after its last byte, not its first (moved before the
      // answer, so a client acting on the answer sees the new expiry).
      beforeAnswer: async (status) => {
        if (status === 204) await touchSession(ctx, session.id);
      },
    });
  });

  router.delete(one, auth, upload, async (req, res) => {
    const session = await sessionOf(req);
    if (session.status !== 'receiving') throw conflict('the upload is complete and its upload stays', 'upload_complete');
    const status = await tus.serve(req, res, { principal: principalOf(req) });
    if (status === 204) await abandonUploadSession(ctx, session.id);
  });

  router.get(one, auth, requirePermission('media:read'), async (req, res) => {
    res.json(await uploadSessionView(ctx, await sessionOf(req)));
  });

  async function touch(res: Response, id: string) {
    const expires = await touchSession(ctx, id);
    if (expires) res.setHeader('Upload-Expires', expires.toUTCString());
  }

  return router;
}
