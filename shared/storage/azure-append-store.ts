/**
 * Resumable uploads' bytes in Azure Blob Storage: @tus/azure-store's append blobs (one per upload, `resumable/<id>`),
 * with three changes for a service that takes files of many gigabytes on several hosts:
 * - a PATCH streams into the blob in append blocks of APPEND_BLOCK_BYTES as it arrives (the package gathers a whole
 *   PATCH body in memory and appends it as one block, which Blob Storage refuses past 100 MiB);
 * - the offset is the blob's committed length, read from Blob Storage each time (the package keeps it in its blob
 *   metadata and in a per-process cache, which another host's PATCH makes stale); every block is appended on the
 *   condition that the blob is still that long, so two writers can never interleave bytes;
 * - termination removes the blob.
 */
import type { Readable } from 'node:stream';
import type { ContainerClient } from '@azure/storage-blob';
import { AzureStore } from '@tus/azure-store';
import { ERRORS, type KvStore, type Upload } from '@tus/utils';
import { statusOf } from './azure-blob-store.js';

/** Blob Storage's largest append block in every service version (newer versions take up to 100 MiB). */
export const APPEND_BLOCK_BYTES = 4 * 1024 * 1024;

const PREFIX = 'resumable/';

/** Nothing cached: every host reads the upload's state from Blob Storage. */
const NO_CACHE: KvStore<Upload> = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
};

/** The container as AzureStore sees it: it names every blob through getAppendBlobClient(id), here under `resumable/`. */
function prefixed(container: ContainerClient): ContainerClient {
  const view = Object.create(container) as ContainerClient;
  view.getAppendBlobClient = (id: string) => container.getAppendBlobClient(PREFIX + id);
  return view;
}

export class AzureAppendStore extends AzureStore {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly container: ContainerClient) {
    super({ client: prefixed(container), cache: NO_CACHE });
    this.extensions = [...this.extensions, 'termination'];
  }

  private blob(id: string) {
    return this.container.getAppendBlobClient(PREFIX + id);
  }

  override async create(upload: Upload): Promise<Upload> {
    this.ready ??= this.container.createIfNotExists().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    await this.ready;
    return super.create(upload);
  }

  override async getUpload(id: string): Promise<Upload> {
    let length: number;
    try {
      length = (await this.blob(id).getProperties()).contentLength ?? 0;
    } catch (err) {
      if (statusOf(err) === 404) throw ERRORS.FILE_NOT_FOUND;
      throw err;
    }
    const upload = await super.getUpload(id);
    upload.offset = length;
    return upload;
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const blob = this.blob(id);
    let position = offset;
    let parts: Buffer[] = [];
    let pending = 0;
    // One block is appended while the next arrives: at most two blocks in memory.
    let appending: Promise<void> = Promise.resolve();
    const append = async (block: Buffer, at: number) => {
      try {
        await blob.appendBlock(block, block.length, { conditions: { appendPosition: at } });
      } catch (err) {
        // Another writer moved the blob on: this request's bytes are not the ones at that offset any more.
        if (statusOf(err) === 412) throw ERRORS.INVALID_OFFSET;
        throw err;
      }
    };
    const flush = async () => {
      await appending;
      if (pending === 0) return;
      const block = Buffer.concat(parts, pending);
      parts = [];
      pending = 0;
      appending = append(block, position);
      position += block.length;
    };
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let rest = chunk;
        while (rest.length > 0) {
          const take = Math.min(rest.length, APPEND_BLOCK_BYTES - pending);
          parts.push(rest.subarray(0, take));
          pending += take;
          rest = rest.subarray(take);
          if (pending === APPEND_BLOCK_BYTES) await flush();
        }
      }
    } catch (err) {
      // The connection dropped: what arrived is kept, and the client resumes from there.
      await flush()
        .then(() => appending)
        .catch(() => undefined);
      throw err;
    }
    await flush();
    await appending;
    return position;
  }

  override async remove(id: string): Promise<void> {
    await this.blob(id).deleteIfExists();
  }

  /** The bytes received, streamed. */
  async openRead(id: string): Promise<Readable> {
    const body = (await this.blob(id).download()).readableStreamBody;
    if (!body) throw ERRORS.FILE_NOT_FOUND;
    return body as Readable;
  }
}
