import { PassThrough } from 'node:stream';
import type { Request } from 'express';
import type { StagedFile, UploadStaging } from '../../shared/storage/index.js';
import { FileTooLargeError } from '../../shared/storage/index.js';
import { ApiError } from '../errors.js';
import { aborted, receiveFile, type ReceiveOptions } from './multipart-file.js';

/**
 * A file sent as multipart/form-data (part `file`, as the web app and the media API send it) or as the raw body
 * (`Content-Type: image/...`, as the C2PA Soft Binding Resolution API's byContent sends it), staged on this
 * process's disk, hashed and size-limited as it arrives.
 */
export async function receiveAnyFile(req: Request, staging: UploadStaging, maxBytes: number): Promise<StagedFile> {
  return (await receiveUpload(req, staging, maxBytes)).staged;
}

/**
 * receiveAnyFile, and in a multipart body the optional second file part (options.optionalPart) too. A raw body may
 * also be a manifest store alone (Content-Type: application/c2pa).
 */
export async function receiveUpload(req: Request, staging: UploadStaging, maxBytes: number, options: ReceiveOptions = {}): Promise<{ staged: StagedFile; optional?: StagedFile }> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return receiveFile(req, staging, maxBytes, options);
  if (!/^(image|video|audio)\/|^application\/(octet-stream|c2pa)/.test(type)) {
    throw new ApiError('unsupported', 'unsupported_media_type', 'send the file as the body (Content-Type: image/..., video/..., audio/... or application/c2pa) or as multipart/form-data with a part named "file"');
  }
  // Refused before reading when the length is declared; a chunked body past the limit is cut off.
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw new FileTooLargeError(maxBytes);
  // Through a pass-through, so that stopping at the limit tears down only it: the request stays readable, its rest is
  // drained and the client gets its 413.
  const body = new PassThrough();
  const gone = () => body.destroy(aborted());
  req.on('aborted', gone);
  req.on('error', gone);
  req.pipe(body);
  try {
    return { staged: await staging.stage(body, maxBytes) };
  } catch (err) {
    req.unpipe(body);
    if (!req.destroyed) req.resume();
    // Stopped at the limit the request is incomplete too: the limit (413) is the answer then.
    if (!req.complete && !(err instanceof FileTooLargeError)) throw aborted();
    throw err;
  } finally {
    req.off('aborted', gone);
    req.off('error', gone);
  }
}
