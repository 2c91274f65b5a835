// Resumable uploads (tus 1.0) with tus-js-client's browser build, which index.html loads as a classic script (the
// app has no bundler; the server takes it from node_modules, api/web-app.ts). A dropped connection is resumed from
// the bytes the service has; a file picked again after a reload resumes the upload this browser began for it.
import { accessToken, ApiError, api } from './api.js';

const ENDPOINT = '/v1/media/resumable-uploads';
/** What one PATCH carries at most (sliced from the file on disk, never read whole). */
const CHUNK_BYTES = 64 * 1024 * 1024;
const RETRY_DELAYS_MS = [0, 1000, 3000, 5000, 10_000, 20_000, 30_000];

function errorFromTus(err) {
  const res = err?.originalResponse;
  if (!res) return new ApiError(0, 'network', 'the service could not be reached');
  let body = null;
  try {
    body = JSON.parse(res.getBody());
  } catch {
    body = null;
  }
  return new ApiError(res.getStatus(), body?.error?.code ?? `http_${res.getStatus()}`, body?.error?.message ?? 'the upload was refused');
}

function uploadOf(text) {
  try {
    const body = JSON.parse(text);
    return typeof body?.upload_id === 'string' ? body : null;
  } catch {
    return null;
  }
}

/**
 * The upload a session became when the last answer did not say (lost, or every byte was already in): asked of the
 * session; one whose completion could not finish (the service was busy) is tried again with an empty PATCH.
 */
async function finish(url, signal) {
  const path = new URL(url, location.href).pathname;
  for (let i = 0; i < 60 && !signal?.aborted; i += 1) {
    const session = await api.get(path, { signal });
    if (session.upload) return session.upload;
    if (session.status === 'receiving' && session.offset === session.size) {
      const res = await fetch(path, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${await accessToken()}`, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(session.size), 'Content-Type': 'application/offset+octet-stream' },
        signal,
      });
      const upload = uploadOf(await res.text());
      if (upload) return upload;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new ApiError(0, 'upload_not_completed', 'the upload did not complete');
}

/** Uploads `file` resumably; onProgress(bytesSent, total). Resolves with the upload, as POST /v1/media/upload does. */
export function uploadResumable(file, { signal, onProgress } = {}) {
  const tus = globalThis.tus;
  if (!tus?.isSupported) return Promise.reject(new ApiError(0, 'unsupported_browser', 'this browser cannot upload resumably'));
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(file, {
      endpoint: ENDPOINT,
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      metadata: { filename: file.name },
      removeFingerprintOnSuccess: true,
      // The token is taken (and refreshed when it is about to expire) for every request: an upload may outlast it.
      onBeforeRequest: async (req) => {
        req.setHeader('Authorization', `Bearer ${await accessToken()}`);
      },
      onProgress: (sent, total) => onProgress?.(sent, total),
      onSuccess: ({ lastResponse }) => {
        const done = uploadOf(lastResponse.getBody());
        if (done) resolve(done);
        else finish(upload.url, signal).then(resolve, reject);
      },
      onError: (err) => reject(err instanceof ApiError ? err : errorFromTus(err)),
    });
    signal?.addEventListener('abort', () => void upload.abort(), { once: true });
    // A file this browser began to upload (same name, size, type and date) carries on from the bytes the service has.
    upload
      .findPreviousUploads()
      .then((previous) => {
        if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      })
      .catch(() => upload.start());
  });
}

