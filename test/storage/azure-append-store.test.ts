/**
 * Resumable uploads' bytes in Blob Storage (shared/storage/azure-append-store.ts) against Azurite: a PATCH body is
 * appended in blocks of at most 4 MiB as it streams, the offset is the blob's length whoever wrote it, a writer at
 * a stale offset is refused without writing, and a body cut short keeps what arrived.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { ERRORS, Upload } from '@tus/utils';
import { expect } from 'chai';
import { APPEND_BLOCK_BYTES, AzureAppendStore } from '../../shared/storage/azure-append-store.js';
import { startAzurite, type Azurite } from '../support/azurite.js';

/** A stream of `bytes` in pieces of `piece` bytes, failing after `failAfter` bytes when given. */
function body(bytes: Buffer, piece: number, failAfter?: number): Readable {
  let at = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && at >= failAfter) {
        this.destroy(new Error('connection reset'));
        return;
      }
      if (at >= bytes.length) {
        this.push(null);
        return;
      }
      this.push(bytes.subarray(at, at + piece));
      at += piece;
    },
  });
}

describe('resumable upload bytes in Blob Storage (append blobs on Azurite)', function () {
  this.timeout(60_000);
  let azurite: Azurite;
  let container: ContainerClient;

  before(async () => {
    azurite = await startAzurite();
    container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(`append-${Date.now().toString(36)}`);
  });
  after(async () => {
    await azurite?.stop();
  });

  it('streams a body of several blocks, each at most 4 MiB, and reads the offset back from the blob', async () => {
    const store = new AzureAppendStore(container);
    const data = randomBytes(2 * APPEND_BLOCK_BYTES + 12345);
    await store.create(new Upload({ id: 'big', size: data.length, offset: 0 }));
    expect(await store.write(body(data, 300_000), 'big', 0)).to.equal(data.length);
    const blob = container.getAppendBlobClient('resumable/big');
    const props = await blob.getProperties();
    expect(props.blobCommittedBlockCount).to.equal(3);
    expect(Buffer.from(await blob.downloadToBuffer()).equals(data)).to.equal(true);
    // Another host's view: no cache, the blob's length.
    const fresh = await new AzureAppendStore(container).getUpload('big');
    expect(fresh).to.include({ offset: data.length, size: data.length });
  });

  it('refuses a writer at a stale offset without writing, keeps a cut-off body, and removes the blob', async () => {
    const a = new AzureAppendStore(container);
    const b = new AzureAppendStore(container);
    const data = randomBytes(1_000_000);
    await a.create(new Upload({ id: 'race', size: data.length, offset: 0 }));
    // A body cut after 300 kB: what arrived is kept.
    const error = await a.write(body(data, 100_000, 300_000), 'race', 0).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).to.equal('connection reset');
    expect((await b.getUpload('race')).offset).to.equal(300_000);
    // Both resume from 300 kB; the second is refused, since the blob moved on under it.
    expect(await a.write(body(data.subarray(300_000, 600_000), 100_000), 'race', 300_000)).to.equal(600_000);
    const stale = await b.write(body(data.subarray(300_000, 600_000), 100_000), 'race', 300_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stale).to.equal(ERRORS.INVALID_OFFSET);
    expect((await a.getUpload('race')).offset).to.equal(600_000);
    await a.remove('race');
    await a.remove('race');
    const gone = await a.getUpload('race').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(gone).to.equal(ERRORS.FILE_NOT_FOUND);
  });
});
