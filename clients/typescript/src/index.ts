/**
 * A typed client for the media signing service. Every request and answer type comes from the service's OpenAPI
 * document (src/generated/openapi.ts, written by `npm run client:generate` at the repository root), so a route that
 * changes shape breaks this package's compilation instead of its users at run time.
 */
import createFetchClient from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';
import { uploadResumable, type ResumableOptions } from './resumable.js';

export type { components, paths } from './generated/openapi.js';
export type { ResumableOptions } from './resumable.js';
export type Job = components['schemas']['Job'];
export type Upload = components['schemas']['Upload'];
export type SignInput = components['schemas']['SignInput'];
export type Verification = paths['/v1/media/verify']['post']['responses'][200]['content']['application/json'];
export type JobStatus = Job['status'];
export type JobPage = paths['/v1/media/jobs']['get']['responses'][200]['content']['application/json'];

/** A request the service refused or could not serve, with its status and error code (never the credentials). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the service asked to wait before trying again (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${message}`);
    this.name = 'ApiError';
  }

  /** Worth trying again later: rate limited, the service busy or unavailable. */
  get transient(): boolean {
    return this.status === 429 || this.status === 502 || this.status === 503 || this.status === 504;
  }
}

export interface ClientOptions {
  /** The service's address, e.g. https://signing.example.com */
  baseUrl: string;
  /** An organisation API key (svc_sk_live_...), sent as X-API-Key. */
  apiKey: string;
  /** Another fetch (tests, proxies); global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

/** Longest ?wait= the service holds a job request (seconds). */
const MAX_WAIT_SECONDS = 30;
const UNFINISHED: readonly JobStatus[] = ['queued', 'processing'];

/** A signed file as the service streams it. */
export interface Download {
  body: ReadableStream<Uint8Array>;
  /** The name the service gives it (Content-Disposition), without any directory. */
  filename: string;
  mimeType: string;
  size: number;
}

function failure(response: Response, error: unknown): ApiError {
  const body = (error ?? {}) as { error?: { code?: unknown; message?: unknown } };
  const code = typeof body.error?.code === 'string' ? body.error.code : `http_${response.status}`;
  const message = typeof body.error?.message === 'string' ? body.error.message : response.statusText || 'request failed';
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, code, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}

/** The data of an openapi-fetch answer, or its error as an ApiError. */
function expectData<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined || !result.response.ok) throw failure(result.response, result.error);
  return result.data;
}

function filenameOf(disposition: string | null, fallback: string): string {
  const name = /filename="([^"]*)"/.exec(disposition ?? '')?.[1] ?? fallback;
  // Only a name: a directory in it must not take the file anywhere else.
  const base = name.split(/[\\/]/).pop() ?? '';
  return base === '' || base === '.' || base === '..' ? fallback : base;
}

export type Client = ReturnType<typeof createClient>;

export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const api = createFetchClient<paths>({
    baseUrl,
    headers: { 'X-API-Key': options.apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  const multipart = (file: Blob, filename: string): FormData => {
    const form = new FormData();
    form.append('file', file, filename);
    return form;
  };

  const job = async (jobId: string, waitSeconds = 0): Promise<Job> =>
    expectData(await api.GET('/v1/media/jobs/{job_id}', { params: { path: { job_id: jobId }, query: { wait: waitSeconds } } }));

  return {
    /** The underlying openapi-fetch client, typed for every route of the API. */
    api,

    /** Uploads a file (a Blob: `await fs.openAsBlob(path)` streams it from disk). */
    async upload(file: Blob, filename: string): Promise<Upload> {
      const form = multipart(file, filename);
      // The generated type describes the multipart fields; the body sent is the FormData itself.
      return expectData(await api.POST('/v1/media/upload', { body: form as never, bodySerializer: (b: unknown) => b as FormData }));
    },

    /**
     * Uploads a file from disk resumably (tus): a dropped connection resumes where the service's bytes end, and
     * `options.sessionUrl` carries on an upload an earlier run began. Progress is reported in bytes.
     */
    uploadFile(file: string, size: number, filename: string, resumable: ResumableOptions = {}): Promise<Upload> {
      return uploadResumable({ baseUrl, apiKey: options.apiKey, fetch: options.fetch ?? globalThis.fetch }, file, size, filename, resumable);
    },

    /** Asks for an upload to be signed; with an idempotency key, repeating the request returns the same job. */
    async sign(input: SignInput, options: { idempotencyKey?: string } = {}): Promise<Job> {
      const header = options.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': options.idempotencyKey };
      return expectData(await api.POST('/v1/media/sign', { body: input, params: header ? { header } : {} }));
    },

    /** A job's view now. */
    job: (jobId: string) => job(jobId),

    /** The job once it is no longer queued or processing (signed, anchoring, anchored or failed). */
    async wait(jobId: string, options: { timeoutMs?: number } = {}): Promise<Job> {
      const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
      for (;;) {
        const left = Math.ceil((deadline - Date.now()) / 1000);
        const current = await job(jobId, Math.max(0, Math.min(MAX_WAIT_SECONDS, left)));
        if (!UNFINISHED.includes(current.status) || left <= 0) return current;
      }
    },

    /** A page of the organisation's jobs, newest first. */
    async jobs(query: { limit?: number; cursor?: string; status?: JobStatus } = {}): Promise<JobPage> {
      return expectData(await api.GET('/v1/media/jobs', { params: { query } }));
    },

    /** A signed file by its id (a job's signed_file.file_id), as a stream. */
    async download(fileId: string): Promise<Download> {
      const result = await api.GET('/v1/media/files/{file_id}', { params: { path: { file_id: fileId } }, parseAs: 'stream' });
      if (!result.response.ok || !result.data) throw failure(result.response, result.error);
      return {
        body: result.data as ReadableStream<Uint8Array>,
        filename: filenameOf(result.response.headers.get('content-disposition'), fileId),
        mimeType: result.response.headers.get('content-type') ?? 'application/octet-stream',
        size: Number(result.response.headers.get('content-length') ?? NaN),
      };
    },

    /** The service's verdict on a file (c2pa-rs with the service's trust anchors). */
    async verify(file: Blob, filename: string): Promise<Verification> {
      const form = multipart(file, filename);
      return expectData(await api.POST('/v1/media/verify', { body: form as never, bodySerializer: (b: unknown) => b as FormData }));
    },
  };
}
