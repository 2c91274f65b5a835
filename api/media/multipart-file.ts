import type { Request } from 'express';
import busboy from 'busboy';
import { largestUploadLimit, uploadLimitFor, type Config } from '../../shared/config.js';
import { formatFor } from '../../shared/media/formats.js';
import { FileTooLargeError, type StagedFile, type UploadStaging } from '../../shared/storage/index.js';
import { ApiError, badRequest } from '../errors.js';

export interface ReceivedFile {
  staged: StagedFile;
  filename: string;
  /** The optional second file part (ReceiveOptions.optionalPart), when it was sent. */
  optional?: StagedFile;
}

export interface ReceiveOptions {
  /** The name of a second file part that may come with `file` (verify's `manifest`), staged under the same limit. */
  optionalPart?: string;
}

/** Keeps a client's file name for downloads: base name only, printable, bounded. */
export function cleanFilename(raw: string | undefined, fallback: string): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 200);
  return cleaned || fallback;
}

/** A staging failure caused by the body itself (cut short, malformed) rather than by this host's disk. */
function isBodyFault(err: unknown): boolean {
  return !(err instanceof Error && 'syscall' in err);
}

/**
 * Streams the multipart part named `file` to this process's staging directory (hashing as it goes) without holding it in
 * memory. Exactly one such part is accepted; anything past `maxBytes` is a 413 and nothing is kept. A body that is
 * malformed or cut short is a 400 `malformed_multipart`, a client that goes away mid-body 400 `upload_aborted` (logged;
 * it cannot be answered): in every case the temp file is removed and its descriptor closed before this rejects.
 */
export function receiveFile(req: Request, store: UploadStaging, maxBytes: number, options: ReceiveOptions = {}): Promise<ReceivedFile> {
  const { optionalPart } = options;
  const type = req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.reject(new ApiError('unsupported', 'unsupported_media_type', 'send multipart/form-data with one part named "file"'));
  }
  return new Promise<ReceivedFile>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: optionalPart ? 2 : 1, fileSize: maxBytes + 1, fields: 20, parts: 30 } });
    } catch {
      reject(badRequest('malformed multipart body', 'malformed_multipart'));
      return;
    }
    const malformed = () => badRequest('malformed multipart body', 'malformed_multipart');
    // Set when the client goes away mid-body: a parser failure then is its leaving, not a malformed body.
    let clientGone = false;
    let staging: Promise<ReceivedFile> | undefined;
    let optionalStaging: Promise<StagedFile> | undefined;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      // Ends the file part too: a staging write in progress stops, closes its file and removes it.
      parser.destroy();
      // Drain what the client is still sending (it may be a large body we no longer want) so it can read the answer.
      if (!req.destroyed) req.resume();
      // A file staged before the failure is not kept, and is gone before the request is answered.
      const cleanup = Promise.all([
        staging?.then((file) => store.discard(file.staged), () => undefined),
        optionalStaging?.then((file) => store.discard(file), () => undefined),
      ]);
      void cleanup.then(() => reject(err));
    };
    const parts = optionalPart ? `one file part named "file" and at most one named "${optionalPart}"` : 'exactly one file part named "file"';
    const stageFailed = (err: unknown) => {
      // Past the limit is its own answer (413); a fault of the body is the client's leaving or a malformed body.
      fail(err instanceof FileTooLargeError || !isBodyFault(err) ? err : clientGone ? aborted() : malformed());
    };
    parser.on('file', (name, stream, info) => {
      if (optionalPart && name === optionalPart && !optionalStaging && !settled) {
        optionalStaging = store.stage(stream, maxBytes);
        optionalStaging.catch(stageFailed);
        return;
      }
      // A second part named "file" is refused as it always was (with a second part allowed, busboy's own limit is 2).
      if (name === 'file' && staging && !settled) {
        stream.on('error', () => undefined);
        stream.resume();
        fail(badRequest(`send ${parts}`, 'too_many_files'));
        return;
      }
      // busboy goes on with the parts after it has reported an error (a malformed part header): nothing is staged then.
      if (name !== 'file' || staging || settled) {
        stream.on('error', () => undefined);
        stream.resume();
        return;
      }
      const staged = store.stage(stream, maxBytes).then((file) => ({ staged: file, filename: cleanFilename(info.filename, 'upload') }));
      staging = staged;
      staged.catch(stageFailed);
    });
    parser.on('filesLimit', () => fail(badRequest(`send ${parts}`, 'too_many_files')));
    parser.on('error', () => fail(clientGone ? aborted() : malformed()));
    parser.on('close', () => {
      if (settled) return;
      if (!staging) return fail(badRequest('the multipart body has no part named "file"', 'file_required'));
      Promise.all([staging, optionalStaging]).then(([file, optional]) => {
        if (settled) return;
        settled = true;
        resolve(optional ? { ...file, optional } : file);
      }, fail);
    });
    const gone = () => {
      clientGone = true;
      fail(aborted());
    };
    req.on('error', gone);
    req.on('aborted', gone);
    req.pipe(parser);
  });
}

/** The client went away mid-body: nobody reads the answer (the error handler logs it). */
export function aborted(): ApiError {
  return badRequest('the upload was interrupted', 'upload_aborted');
}

type UploadLimits = Pick<Config, 'maxUploadBytes' | 'maxUploadBytesVideo' | 'maxUploadBytesAudio'>;

/**
 * How much an upload may stream to the staging disk: the largest of the per-kind limits, since the kind is only known
 * once the file is there. assertWithinUploadLimit then applies the limit of the kind it turned out to be.
 */
export function stagingLimit(config: UploadLimits): number {
  return largestUploadLimit(config);
}

/** A size in words for messages: `12.5 MiB`. */
export const describeBytes = (bytes: number) => `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;

/**
 * 413 unless a staged file of `mimeType` (identified by content) is within the limit of its kind: MAX_UPLOAD_BYTES_VIDEO,
 * MAX_UPLOAD_BYTES_AUDIO, MAX_UPLOAD_BYTES for images. Signing holds a file several times over in memory, so
 * video and audio have limits of their own.
 */
export function assertWithinUploadLimit(config: UploadLimits, mimeType: string, size: number): void {
  const kind = formatFor(mimeType)?.kind ?? 'image';
  const limit = uploadLimitFor(config, kind);
  if (size <= limit) return;
  throw new ApiError('too_large', 'payload_too_large', `${kind} files may be at most ${limit} bytes (${describeBytes(limit)}); this one is ${size} bytes (${describeBytes(size)})`);
}
