import type { Request } from 'express';
import { Transform, type Readable } from 'node:stream';
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

/** A file part of a multipart body, staged: its part name and the file name the client gave it ('' for none). */
export interface ReceivedPart {
  name: string;
  staged: StagedFile;
  filename: string;
}

/** What receiveParts takes of a multipart body. */
export interface PartsSpec {
  /** The file parts taken, by name, with how many of each may come (more is 400 too_many_files). Others are dropped. */
  parts: Readonly<Record<string, number>>;
  /** Bytes one part may have (413 beyond). */
  maxPartBytes: number;
  /** Bytes all parts together may have (413 beyond). */
  maxTotalBytes?: number;
  /** What the body must hold, for messages: `exactly one file part named "file"`. */
  expected: string;
}

/** Counts the bytes of every part through it against the body's total; past it, FileTooLargeError. */
function totalMeter(stream: Readable, counter: { bytes: number }, limit: number): Readable {
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      counter.bytes += chunk.length;
      done(counter.bytes > limit ? new FileTooLargeError(limit) : null, chunk);
    },
  });
  stream.on('error', (err) => meter.destroy(err));
  return stream.pipe(meter);
}

/**
 * Streams the multipart body's file parts named in `spec` to this process's staging directory, in the order they come
 * (hashing as it goes), without holding them in memory. A part past its limit, or all parts past theirs, is a 413 and
 * nothing is kept. A body that is malformed or cut short is a 400 `malformed_multipart`, a client that goes away
 * mid-body 400 `upload_aborted` (logged; it cannot be answered): in every case the temp files are removed and their
 * descriptors closed before this rejects. The caller owns the staged files it gets.
 */
export function receiveParts(req: Request, store: UploadStaging, spec: PartsSpec): Promise<ReceivedPart[]> {
  const type = req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.reject(new ApiError('unsupported', 'unsupported_media_type', `send multipart/form-data with ${spec.expected}`));
  }
  const files = Object.values(spec.parts).reduce((n, max) => n + max, 0);
  return new Promise<ReceivedPart[]>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files, fileSize: spec.maxPartBytes + 1, fields: 20, parts: files + 20 } });
    } catch {
      reject(badRequest('malformed multipart body', 'malformed_multipart'));
      return;
    }
    const malformed = () => badRequest('malformed multipart body', 'malformed_multipart');
    const tooMany = () => badRequest(`send ${spec.expected}`, 'too_many_files');
    // Set when the client goes away mid-body: a parser failure then is its leaving, not a malformed body.
    let clientGone = false;
    const staging: Promise<ReceivedPart>[] = [];
    const taken = new Map<string, number>();
    const total = { bytes: 0 };
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
      const cleanup = Promise.all(staging.map((part) => part.then((p) => store.discard(p.staged), () => undefined)));
      void cleanup.then(() => reject(err));
    };
    const stageFailed = (err: unknown) => {
      // Past the limit is its own answer (413); a fault of the body is the client's leaving or a malformed body.
      fail(err instanceof FileTooLargeError || !isBodyFault(err) ? err : clientGone ? aborted() : malformed());
    };
    const drop = (stream: Readable) => {
      stream.on('error', () => undefined);
      stream.resume();
    };
    parser.on('file', (name, stream, info) => {
      // busboy goes on with the parts after it has reported an error (a malformed part header): nothing is staged then.
      const max = Object.hasOwn(spec.parts, name) ? spec.parts[name]! : 0;
      if (settled || max === 0) return drop(stream);
      const count = (taken.get(name) ?? 0) + 1;
      taken.set(name, count);
      if (count > max) {
        drop(stream);
        return fail(tooMany());
      }
      const input = spec.maxTotalBytes === undefined ? stream : totalMeter(stream, total, spec.maxTotalBytes);
      const staged = store.stage(input, spec.maxPartBytes).then((file) => ({ name, staged: file, filename: cleanFilename(info.filename, '') }));
      staging.push(staged);
      staged.catch(stageFailed);
    });
    parser.on('filesLimit', () => fail(tooMany()));
    parser.on('error', () => fail(clientGone ? aborted() : malformed()));
    parser.on('close', () => {
      if (settled) return;
      Promise.all(staging).then((parts) => {
        if (settled) return;
        settled = true;
        resolve(parts);
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

/**
 * Streams the multipart part named `file` (and, with `optionalPart`, at most one more part of that name) to the staging
 * directory, as receiveParts does. Exactly one `file` part is accepted; anything past `maxBytes` is a 413.
 */
export async function receiveFile(req: Request, store: UploadStaging, maxBytes: number, options: ReceiveOptions = {}): Promise<ReceivedFile> {
  const { optionalPart } = options;
  const expected = optionalPart ? `one file part named "file" and at most one named "${optionalPart}"` : 'exactly one file part named "file"';
  const parts = await receiveParts(req, store, { parts: { file: 1, ...(optionalPart ? { [optionalPart]: 1 } : {}) }, maxPartBytes: maxBytes, expected });
  return fileOf(parts, store, optionalPart);
}

/** The part `file` (and the `optionalPart`) of received parts; without a `file`, every part is discarded and 400. */
export async function fileOf(parts: readonly ReceivedPart[], store: UploadStaging, optionalPart?: string): Promise<ReceivedFile> {
  const file = parts.find((p) => p.name === 'file');
  if (!file) {
    await Promise.all(parts.map((p) => store.discard(p.staged)));
    throw badRequest('the multipart body has no part named "file"', 'file_required');
  }
  const optional = parts.find((p) => p.name === optionalPart)?.staged;
  return { staged: file.staged, filename: file.filename || 'upload', ...(optional ? { optional } : {}) };
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
