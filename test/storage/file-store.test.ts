import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BlobServiceClient } from '@azure/storage-blob';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config.js';
import {
  AzureBlobFileStore,
  createFileStore,
  LocalFileStore,
  StorageUnavailableError,
  StoredFileMissingError,
  type FileStore,
} from '../../shared/storage/index.js';
import { testConfig } from '../support/api.js';
import { DEV_ACCOUNT_KEY, devConnectionString, startAzurite, type Azurite } from '../support/azurite.js';
import { rejection } from '../support/rejection.js';

async function drain(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}


/** A port nothing listens on (bound by the OS, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const uniqueContainer = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

interface Driver {
  /** A store on fresh, empty backing storage (a new directory, a new container). */
  fresh(): FileStore;
  /** Whether the store's directory/container exists on its backing storage. */
  exists(store: FileStore): Promise<boolean>;
}

/** What every FileStore driver must do, whatever is behind it. */
function contract(name: string, setup: () => Promise<Driver>, teardown: () => Promise<void>) {
  describe(`FileStore contract: ${name}`, function () {
    this.timeout(60_000);
    let driver: Driver;
    let store: FileStore;
    let scratch: string;
    const key = (prefix = 'uploads') => `${prefix}/org-${randomBytes(3).toString('hex')}/${randomBytes(8).toString('hex')}.png`;

    before(async () => {
      driver = await setup();
      store = driver.fresh();
      await store.ensureReady();
      scratch = mkdtempSync(path.join(tmpdir(), 'store-scratch-'));
    });
    after(async () => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      await teardown();
    });

    it('ensureReady creates the directory/container, and is safe to call again', async () => {
      const s = driver.fresh();
      expect(await driver.exists(s)).to.equal(false);
      await s.ensureReady();
      expect(await driver.exists(s)).to.equal(true);
      await s.ensureReady();
      expect(await driver.exists(s)).to.equal(true);
    });

    it('putFile streams a local file in; read gives back the same bytes', async () => {
      const bytes = randomBytes(70_000);
      const local = path.join(scratch, 'put.bin');
      writeFileSync(local, bytes);
      const k = key();
      await store.putFile(k, local);
      expect((await store.read(k)).equals(bytes)).to.equal(true);
      // The store holds its own copy: the staged file can go.
      rmSync(local);
      expect((await store.read(k)).equals(bytes)).to.equal(true);
    });

    it('write then read gives back the same bytes; a second write replaces the first', async () => {
      const k = key('signed');
      const first = randomBytes(1234);
      await store.write(k, first);
      expect((await store.read(k)).equals(first)).to.equal(true);
      const second = new Uint8Array(randomBytes(99));
      await store.write(k, second);
      expect((await store.read(k)).equals(Buffer.from(second))).to.equal(true);
    });

    it('an empty file round-trips', async () => {
      const k = key();
      await store.write(k, new Uint8Array(0));
      expect((await store.read(k)).length).to.equal(0);
      const { stream, size } = await store.openRead(k);
      expect(size).to.equal(0);
      expect((await drain(stream)).length).to.equal(0);
    });

    it('openRead streams the bytes and reports the size', async () => {
      const k = key();
      const bytes = randomBytes(300_001);
      await store.write(k, bytes);
      const { stream, size } = await store.openRead(k);
      expect(size).to.equal(bytes.length);
      expect((await drain(stream)).equals(bytes)).to.equal(true);
    });

    it('a 9 MB file round-trips through putFile and openRead', async function () {
      const bytes = randomBytes(9 * 1024 * 1024 + 17);
      const local = path.join(scratch, 'big.bin');
      writeFileSync(local, bytes);
      const k = key();
      await store.putFile(k, local);
      const { stream, size } = await store.openRead(k);
      expect(size).to.equal(bytes.length);
      expect((await drain(stream)).equals(bytes)).to.equal(true);
      expect((await store.read(k)).equals(bytes)).to.equal(true);
    });

    it('read and openRead of a missing key throw StoredFileMissingError', async () => {
      const k = key();
      const a = await rejection(store.read(k));
      expect(a).to.be.instanceOf(StoredFileMissingError);
      expect((a as StoredFileMissingError).key).to.equal(k);
      const b = await rejection(store.openRead(k));
      expect(b).to.be.instanceOf(StoredFileMissingError);
      expect((b as StoredFileMissingError).key).to.equal(k);
    });

    it('remove is idempotent: the file goes, removing it again or a never-stored key is no error', async () => {
      const k = key('signed');
      await store.write(k, randomBytes(10));
      await store.remove(k);
      expect(await rejection(store.read(k))).to.be.instanceOf(StoredFileMissingError);
      await store.remove(k);
      await store.remove(key());
    });

    it('invalid keys are refused before any I/O (a fresh store creates nothing)', async () => {
      const s = driver.fresh();
      const local = path.join(scratch, 'x.bin');
      writeFileSync(local, 'x');
      for (const bad of ['../x', 'Uploads/X', 'uploads', 'uploads/../../etc/passwd', '/uploads/a.png', 'uploads/a/../b.png', 'uploads//a.png', '']) {
        for (const op of [
          () => s.putFile(bad, local),
          () => s.write(bad, Buffer.from('x')),
          () => s.read(bad),
          () => s.openRead(bad),
          () => s.remove(bad),
        ]) {
          const err = await rejection(op());
          expect(err, `${bad}: ${String(err)}`).to.be.instanceOf(Error);
          expect((err as Error).message, bad).to.match(/invalid storage key/);
        }
      }
      expect(await driver.exists(s), 'the store was touched').to.equal(false);
    });
  });
}

const localDirs: string[] = [];
contract(
  'LocalFileStore (DATA_DIR/files)',
  async () => ({
    fresh() {
      const dir = mkdtempSync(path.join(tmpdir(), 'local-store-'));
      localDirs.push(dir);
      return new LocalFileStore(dir);
    },
    async exists(store) {
      return existsSync((store as unknown as { root: string }).root);
    },
  }),
  async () => {
    for (const dir of localDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
);

let azurite: Azurite | undefined;
contract(
  'AzureBlobFileStore (Azurite)',
  async () => {
    azurite = await startAzurite();
    const service = BlobServiceClient.fromConnectionString(azurite.connectionString);
    const names = new WeakMap<FileStore, string>();
    return {
      fresh() {
        const name = uniqueContainer('contract');
        const store = new AzureBlobFileStore({ connectionString: azurite!.connectionString }, name);
        names.set(store, name);
        return store;
      },
      exists: (store) => service.getContainerClient(names.get(store)!).exists(),
    };
  },
  async () => {
    await azurite?.stop();
    azurite = undefined;
  },
);

describe('AzureBlobFileStore on Azurite: large files', function () {
  this.timeout(60_000);
  let azurite: Azurite;
  let scratch: string;
  before(async () => {
    azurite = await startAzurite();
    scratch = mkdtempSync(path.join(tmpdir(), 'store-big-'));
  });
  after(async () => {
    await azurite?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('a file above the SDK single-shot limit (256 MiB) goes up in blocks and streams back intact', async () => {
    // Below 256 MiB the SDK sends one Put Blob (the 9 MB contract case); above it, staged blocks and a block list.
    const local = path.join(scratch, 'huge.bin');
    const chunk = randomBytes(1024 * 1024);
    const sent = createHash('sha256');
    const fd = openSync(local, 'w');
    const mib = 260;
    for (let i = 0; i < mib; i += 1) {
      chunk.writeUInt32BE(i, 0); // every MiB differs, so misplaced blocks would show
      writeSync(fd, chunk);
      sent.update(chunk);
    }
    closeSync(fd);
    const container = uniqueContainer('big');
    const store = new AzureBlobFileStore({ connectionString: azurite.connectionString }, container);
    await store.putFile('uploads/o/huge.png', local);
    rmSync(local);
    const blob = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).getBlockBlobClient('uploads/o/huge.png');
    expect((await blob.getBlockList('committed')).committedBlocks?.length).to.be.greaterThan(1);
    const { stream, size } = await store.openRead('uploads/o/huge.png');
    expect(size).to.equal(mib * 1024 * 1024);
    const got = createHash('sha256');
    let length = 0;
    for await (const part of stream) {
      got.update(part as Buffer);
      length += (part as Buffer).length;
    }
    expect(length).to.equal(size);
    expect(got.digest('hex')).to.equal(sent.digest('hex'));
    await store.remove('uploads/o/huge.png');
  });
});

describe('AzureBlobFileStore against an unreachable account', function () {
  this.timeout(30_000);

  it('fails with StorageUnavailableError within seconds, not minutes, without leaking the account key', async () => {
    const port = await closedPort();
    const store = new AzureBlobFileStore({ connectionString: devConnectionString(port) }, 'media');
    for (const op of [() => store.ensureReady(), () => store.write('signed/o/a.png', Buffer.from('x')), () => store.read('uploads/o/a.png'), () => store.openRead('uploads/o/a.png')]) {
      const started = Date.now();
      const err = await rejection(op());
      const ms = Date.now() - started;
      expect(err).to.be.instanceOf(StorageUnavailableError);
      expect(ms, 'took too long').to.be.lessThan(8000);
      expect((err as Error).message).to.not.contain(DEV_ACCOUNT_KEY);
    }
  });

  it('refuses an invalid key at once rather than reaching for the account first', async () => {
    const port = await closedPort();
    const store = new AzureBlobFileStore({ connectionString: devConnectionString(port) }, 'media');
    const started = Date.now();
    const err = await rejection(store.write('../x', Buffer.from('x')));
    expect((err as Error).message).to.match(/invalid storage key/);
    expect(Date.now() - started).to.be.lessThan(200);
  });
});

describe('createFileStore and the blob storage configuration', function () {
  this.timeout(30_000);
  const dirs: string[] = [];
  let azurite: Azurite;

  before(async () => {
    azurite = await startAzurite();
  });
  after(async () => {
    await azurite?.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('picks Azure Blob Storage when AZURE_STORAGE_CONNECTION_STRING is set, and writes land in the container', async () => {
    const container = uniqueContainer('pick');
    const config = testConfig({ AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString, BLOB_CONTAINER: container });
    dirs.push(config.dataDir);
    expect(config.blobStorage).to.deep.include({ connectionString: azurite.connectionString, container });
    const store = createFileStore(config);
    expect(store).to.be.instanceOf(AzureBlobFileStore);
    expect(store.kind).to.equal('azure-blob');
    await store.write('signed/o/x.png', Buffer.from('hello'));
    const blob = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).getBlobClient('signed/o/x.png');
    expect((await blob.downloadToBuffer()).toString()).to.equal('hello');
    expect(existsSync(path.join(config.dataDir, 'files'))).to.equal(false);
  });

  it('imports the SDK at load(), without I/O: a connection string the SDK refuses fails there, and so does the first call', async () => {
    const config = testConfig({ AZURE_STORAGE_CONNECTION_STRING: 'AccountName=devstoreaccount1' });
    dirs.push(config.dataDir);
    const store = createFileStore(config);
    expect((await rejection(store.load!())).message).to.match(/BlobEndpoint/);
    const failure = await rejection(store.write('signed/o/x.png', Buffer.from('hello')));
    expect(failure).to.be.instanceOf(StorageUnavailableError);
    expect(failure.message).to.match(/BlobEndpoint/);
  });

  it('defaults the container to "media"', () => {
    const config = testConfig({ AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString });
    dirs.push(config.dataDir);
    expect(config.blobStorage?.container).to.equal('media');
  });

  it('keeps files in DATA_DIR/files without it', async () => {
    const config = testConfig();
    dirs.push(config.dataDir);
    expect(config.blobStorage).to.equal(undefined);
    const store = createFileStore(config);
    expect(store).to.be.instanceOf(LocalFileStore);
    expect(store.kind).to.equal('local');
    await store.write('signed/o/x.png', Buffer.from('hello'));
    expect(existsSync(path.join(config.dataDir, 'files', 'signed/o/x.png'))).to.equal(true);
  });

  describe('loadConfig', () => {
    let dataDir: string;
    before(() => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
      dirs.push(dataDir);
    });
    const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), ...env });
    const refusal = (env: Record<string, string>): ConfigError => {
      try {
        load(env);
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return err as ConfigError;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };

    it('refuses a container name Azure would refuse', () => {
      for (const bad of ['Media', 'ab', 'a--b', '-media', 'media-', 'me_dia', 'media/x', 'x'.repeat(64)]) {
        const err = refusal({ AZURE_STORAGE_CONNECTION_STRING: devConnectionString(10000), BLOB_CONTAINER: bad });
        expect(err.variable, bad).to.equal('BLOB_CONTAINER');
      }
      for (const good of ['abc', 'media', 'my-media-2', 'x'.repeat(63)]) {
        expect(load({ AZURE_STORAGE_CONNECTION_STRING: devConnectionString(10000), BLOB_CONTAINER: good }).blobStorage?.container).to.equal(good);
      }
    });

    it('refuses a connection string that is not one, without echoing it', () => {
      const secret = 'S3cr3tK3yMaterial0123456789abcdefghijklmnopqrstuv';
      for (const bad of [
        secret,
        `AccountKey=${secret}`,
        `https://acct.blob.core.windows.net/?sv=2024-01-01&sig=${secret}`,
        `DefaultEndpointsProtocol=https;AccountKey=${secret};EndpointSuffix=core.windows.net`,
      ]) {
        const err = refusal({ AZURE_STORAGE_CONNECTION_STRING: bad });
        expect(err.variable).to.equal('AZURE_STORAGE_CONNECTION_STRING');
        expect(err.message).to.not.contain(secret);
        expect(err.message).to.not.contain(bad);
      }
    });
  });
});
