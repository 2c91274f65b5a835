/**
 * Resumable uploads (tus 1.0, through tus-js-client) to /v1/media/resumable-uploads: the file is read from disk in
 * slices, a dropped connection is resumed from the offset the service reports (HEAD), and a session URL kept from an
 * earlier run carries on where that run stopped. The last byte makes the session an ordinary upload.
 */
import { createReadStream } from 'node:fs';
import * as tus from 'tus-js-client';
import { ApiError, type Upload } from './index.js';

/** What one PATCH sends at most: a proxy in between need not take a whole video in one request. */
const CHUNK_BYTES = 64 * 1024 * 1024;
/** tus-js-client's pauses before each new try after a failed request (then it gives up, and the caller's retries take over). */
const RETRY_DELAYS_MS = [0, 1000, 3000, 5000, 10_000, 20_000];

export interface ResumableOptions {
  /** Bytes the service has so far, as they go (a resumed upload starts at what was already there). */
  onProgress?: (sent: number, total: number) => void;
  /** The session's URL once it exists, to keep and give back as `sessionUrl` after an interruption. */
  onSessionUrl?: (url: string) => void;
  /** A session an earlier run started: resumed from its offset (a new one is started when it has expired). */
  sessionUrl?: string;
}

export interface ResumableTarget {
  baseUrl: string;
  apiKey: string;
  fetch: typeof globalThis.fetch;
}

type SessionView = { status: 'receiving' | 'completing' | 'completed'; size: number; offset: number; upload: Upload | null };

const TUS = { 'Tus-Resumable': '1.0.0' };

/** A failed tus request as the client's ApiError (status and the service's code), or the network error as it is. */
function asApiError(err: unknown): unknown {
  const response = (err as tus.DetailedError).originalResponse;
  if (!response) return (err as tus.DetailedError).causingError ?? err;
  let body: { error?: { code?: string; message?: string } } = {};
  try {
    body = JSON.parse(response.getBody()) as typeof body;
  } catch {
    // not the service's JSON (a proxy's page)
  }
  const retryAfter = Number(response.getHeader('retry-after'));
  return new ApiError(response.getStatus(), body.error?.code ?? `http_${response.getStatus()}`, body.error?.message ?? 'the upload was refused', retryAfter > 0 ? retryAfter : undefined);
}

function parseUpload(text: string): Upload | undefined {
  try {
    const body = JSON.parse(text) as Partial<Upload>;
    return typeof body.upload_id === 'string' ? (body as Upload) : undefined;
  } catch {
    return undefined;
  }
}

export async function uploadResumable(target: ResumableTarget, file: string, size: number, filename: string, options: ResumableOptions = {}): Promise<Upload> {
  const headers = { 'X-API-Key': target.apiKey };
  const endpoint = `${target.baseUrl}/v1/media/resumable-uploads`;
  const { url, lastBody } = await new Promise<{ url: string; lastBody: string }>((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(file), {
      endpoint,
      ...(options.sessionUrl ? { uploadUrl: options.sessionUrl } : {}),
      uploadSize: size,
      headers,
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      metadata: { filename },
      // This client keeps the session URL in its own journal.
      storeFingerprintForResuming: false,
      onUploadUrlAvailable: () => options.onSessionUrl?.(upload.url!),
      onProgress: (sent, total) => options.onProgress?.(sent, total),
      onSuccess: ({ lastResponse }) => resolve({ url: upload.url!, lastBody: lastResponse.getBody() ?? '' }),
      onError: (err) => reject(asApiError(err)),
    });
    upload.start();
  });
  return parseUpload(lastBody) ?? finish(target, url);
}

/**
 * The upload a session became when the answer to its last byte did not say (it was lost, or HEAD found every byte
 * already in): asked of the session; one whose completion could not finish (the service was busy) is tried again by
 * an empty PATCH at its final offset.
 */
async function finish(target: ResumableTarget, url: string): Promise<Upload> {
  const auth = { 'X-API-Key': target.apiKey };
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const res = await target.fetch(url, { headers: auth });
    if (!res.ok) throw new ApiError(res.status, `http_${res.status}`, 'the upload session is gone: its completion failed or it expired');
    const session = (await res.json()) as SessionView;
    if (session.upload) return session.upload;
    if (session.status === 'receiving' && session.offset === session.size) {
      const done = await target.fetch(url, { method: 'PATCH', headers: { ...auth, ...TUS, 'Upload-Offset': String(session.size), 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(0) });
      const text = await done.text();
      const upload = parseUpload(text);
      if (upload) return upload;
      // Refused for good (the file is not acceptable media): the service removed the session; say why.
      if (done.status !== 503 && done.status !== 423) throw asApiError({ originalResponse: { getStatus: () => done.status, getBody: () => text, getHeader: (h: string) => done.headers.get(h) ?? undefined } });
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new ApiError(504, 'upload_not_completed', 'the upload session did not complete in time');
}
