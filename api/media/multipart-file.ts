import type { Request } from 'express';
import busboy from 'busboy';
import { FileTooLargeError, type StagedFile, type UploadStaging } from '../../shared/storage/index.js';
import { ApiError, badRequest } from '../errors.js';

export interface ReceivedFile {
  staged: StagedFile;
  filename: string;
}

/** Keeps a client's file name for downloads: base name only, printable, bounded. */
export function cleanFilename(raw: string | undefined, fallback: string): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 200);
  return cleaned || fallback;
}

/**
 * Streams the multipart part named `file` to this process's staging directory (hashing as it goes) without holding it in
 * memory. Exactly one such part is accepted; anything past `maxBytes` is a 413 and nothing is kept.
 */
export function receiveFile(req: Request, store: UploadStaging, maxBytes: number): Promise<ReceivedFile> {
  const type = req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.reject(new ApiError(415, 'unsupported_media_type', 'send multipart/form-data with one part named "file"'));
  }
  return new Promise<ReceivedFile>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 20, parts: 30 } });
    } catch {
      reject(badRequest('malformed multipart body', 'malformed_multipart'));
      return;
    }
    let pending: Promise<ReceivedFile> | undefined;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      // Stop reading: the client may still be sending a large body we no longer want.
      req.unpipe(parser);
      req.resume();
      // A file staged before the failure is not kept.
      pending?.then((file) => store.discard(file.staged), () => undefined);
      reject(err);
    };
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || pending) {
        stream.resume();
        return;
      }
      const staging = store.stage(stream, maxBytes).then((staged) => ({ staged, filename: cleanFilename(info.filename, 'upload') }));
      pending = staging;
      staging.catch((err: unknown) => {
        stream.resume();
        fail(err instanceof FileTooLargeError ? new ApiError(413, 'payload_too_large', `the file exceeds the limit of ${maxBytes} bytes`) : err);
      });
    });
    parser.on('filesLimit', () => fail(badRequest('send exactly one file part named "file"', 'too_many_files')));
    parser.on('error', () => fail(badRequest('malformed multipart body', 'malformed_multipart')));
    parser.on('close', () => {
      if (settled) return;
      if (!pending) return fail(badRequest('the multipart body has no part named "file"', 'file_required'));
      pending.then((file) => {
        if (settled) return;
        settled = true;
        resolve(file);
      }, fail);
    });
    req.on('aborted', () => fail(badRequest('the upload was interrupted', 'upload_aborted')));
    req.pipe(parser);
  });
}
