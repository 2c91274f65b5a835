/**
 * The tus 1.0 protocol for resumable uploads, spoken by @tus/server (creation, HEAD for the offset, PATCH at an
 * offset, termination), inside the API's Express routes: they authenticate, find the caller's session and hand
 * the request here. Around it, the service's own parts:
 * - the session row is written before any byte (onUploadCreate) and locked as a lease any host can see (session-lease.ts);
 * - the last byte makes the session an ordinary upload (onUploadFinish: completeUploadSession), whose view is the body
 *   of the answer to that PATCH (200; 201 when the creation request carried the whole file);
 * - every refusal leaves in the service's JSON error shape (tus-answers.ts, or the API's error handler for the
 *   service's own errors), keeping tus's status.
 */
import type { Request, Response } from 'express';
import { Server } from '@tus/server';
import { ERRORS, type DataStore } from '@tus/utils';
import { NodeRequest, sendNodeResponse } from 'srvx/node';
import { largestUploadLimit } from '../../../shared/config.js';
import { StorageUnavailableError } from '../../../shared/storage/index.js';
import type { Principal } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { completeUploadSession, openUploadSession, RESUMABLE_PATH } from '../../services/upload-sessions.js';
import { cleanFilename } from '../multipart-file.js';
import { SessionLeaseLocker } from './session-lease.js';
import { isTusError, tusAnswer, type TusError } from './tus-answers.js';

/** One request handed to tus: who asks, and what happened inside it that the answer must tell. */
export interface TusCall {
  /** Absent for discovery (OPTIONS), which touches no session. */
  principal?: Principal;
  /** The id a creation request gives its new session. */
  sessionId?: string;
  /** The creation request wrote the session's row. */
  created?: boolean;
  /** When the session created here expires unless bytes arrive (the creation's Upload-Expires). */
  expiresAt?: Date;
  /** The last byte arrived and completion ran (and settled the session whatever its outcome). */
  finishing?: boolean;
  /** The service's own error (a refused file at completion, a 413 at creation): the API's error handler answers it. */
  failure?: unknown;
  tusError?: TusError;
  /** Runs once tus has succeeded and before its answer is sent, so the client never sees the answer first. */
  beforeAnswer?: (status: number) => Promise<void>;
}

type Hooked = object;

export class ResumableUploads {
  private server: Promise<Server> | undefined;
  private readonly calls = new WeakMap<Hooked, TusCall>();

  constructor(private readonly ctx: AppContext) {}

  /** Made at the first request, when the store's datastore is (Blob Storage's imports its SDK then). */
  private tus(): Promise<Server> {
    if (!this.server) {
      this.server = this.ctx.resumable.datastore().then((datastore) => this.createServer(datastore));
      this.server.catch(() => (this.server = undefined));
    }
    return this.server;
  }

  private createServer(datastore: DataStore): Server {
    const ctx = this.ctx;
    return new Server({
      path: RESUMABLE_PATH,
      datastore,
      locker: new SessionLeaseLocker(ctx.knex),
      // Relative, so that it holds behind any proxy; tus clients resolve it against the creation URL.
      relativeLocation: true,
      maxSize: largestUploadLimit(ctx.config),
      // Same-origin only, as the rest of the API (no CORS headers).
      allowedOrigins: [],
      namingFunction: (req) => this.call(req).sessionId!,
      onUploadCreate: async (req, upload) => {
        const call = this.call(req);
        if (!call.principal) throw new Error('a tus creation without a principal');
        const filename = cleanFilename(upload.metadata?.filename ?? undefined, 'upload');
        const session = await openUploadSession(ctx, call.principal, { id: upload.id, size: upload.size ?? 0, filename });
        call.created = true;
        call.expiresAt = session.expires_at;
        return {};
      },
      onUploadFinish: async (req, upload) => {
        const call = this.call(req);
        call.finishing = true;
        try {
          if (!call.principal) throw new Error('a tus completion without a principal');
          const view = await completeUploadSession(ctx, call.principal, upload.id);
          return { status_code: req.method === 'POST' ? 201 : 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: JSON.stringify(view) };
        } catch (err) {
          call.failure = err;
          throw ERRORS.UNKNOWN_ERROR;
        }
      },
      onResponseError: (req, err) => {
        const call = this.call(req);
        if (isTusError(err)) call.tusError ??= err;
        else call.failure ??= err;
        return undefined;
      },
    });
  }

  private call(req: Hooked): TusCall {
    const call = this.calls.get(req);
    if (!call) throw new Error('a tus request without its call');
    return call;
  }

  /** Answers the request through tus; resolves with the status sent. The service's own failures are thrown. */
  async serve(req: Request, res: Response, call: TusCall): Promise<number> {
    const request = new NodeRequest({ req, res });
    this.calls.set(request, call);
    const response = await (await this.tus()).handleWeb(request);
    // tus closes a connection whose body it did not read (a refused PATCH): no gigabytes drained for nothing.
    if (response.headers.get('connection') === 'close') res.setHeader('Connection', 'close');
    if (call.failure) throw serviceFailure(call.failure);
    if (response.status < 400) {
      if (call.expiresAt && response.status === 201 && !call.finishing) res.setHeader('Upload-Expires', call.expiresAt.toUTCString());
      await call.beforeAnswer?.(response.status);
      await sendNodeResponse(res, response);
      return response.status;
    }
    const answer = tusAnswer(call.tusError, response.status, await response.text());
    if (answer.status >= 500) throw new Error(`tus answered ${response.status}: ${answer.message}`);
    if (!req.socket.destroyed) res.status(answer.status).json({ error: { code: answer.code, message: answer.message } });
    return answer.status;
  }
}

/** Blob Storage's SDK errors are the store being unavailable (503, retried by clients); anything else is as thrown. */
function serviceFailure(err: unknown): unknown {
  if (err instanceof Error && err.name === 'RestError') return new StorageUnavailableError(`resumable upload store: ${err.message.split('\n')[0]}`, { cause: err });
  return err;
}
