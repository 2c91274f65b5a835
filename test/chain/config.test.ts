/** Anchoring configuration: defaults, validation, and what production refuses. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startAnchoringFromConfig } from '../../scheduler/anchoring.js';
import { startEmbeddedChainIfNeeded } from '../../shared/chain/embedded.js';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { rejection } from '../support/rejection.js';

// Every test's DATA_DIR lives under one directory, removed when the file's tests are done.
const scratch = mkdtempSync(path.join(tmpdir(), 'cfg-chain-'));
const env = (extra: Record<string, string> = {}) => ({ DATA_DIR: mkdtempSync(path.join(scratch, 'd-')), ...extra });
const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) };

describe('chain: anchoring configuration', () => {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('defaults: batches of 1000 or 1 minute, 16 in flight, 3 confirmations on an external chain and 1 embedded', () => {
    const embedded = loadConfig(env());
    expect(embedded.anchor).to.deep.equal({ batchSize: 1000, batchMaxAgeMs: 60_000, confirmations: 1, pollMs: 2000, resendAfterMs: 180_000, maxInFlight: 16 });
    expect(embedded.chainPort).to.equal(8545);
    expect(loadConfig(env({ CHAIN_RPC_URL: 'https://rpc.example' })).anchor.confirmations).to.equal(3);
    expect(loadConfig(env({ CHAIN_RPC_URL: 'https://rpc.example', ANCHOR_CONFIRMATIONS: '12' })).anchor.confirmations).to.equal(12);
  });

  it('names a malformed CHAIN_PRIVATE_KEY without echoing it, and normalises a bare hex key', () => {
    const bad = 'not-a-key-secret-value';
    expect(() => loadConfig(env({ CHAIN_PRIVATE_KEY: bad }))).to.throw(ConfigError, /CHAIN_PRIVATE_KEY/).and.satisfy((e: Error) => !e.message.includes(bad));
    expect(loadConfig(env({ CHAIN_PRIVATE_KEY: 'ab'.repeat(32) })).chainPrivateKey).to.equal(`0x${'ab'.repeat(32)}`);
  });

  for (const [name, value] of [
    ['ANCHOR_BATCH_SIZE', '0'],
    ['ANCHOR_BATCH_SIZE', '20000'],
    ['ANCHOR_CONFIRMATIONS', '0'],
    ['CHAIN_ID', 'sepolia'],
    ['CHAIN_PORT', '70000'],
    ['CHAIN_RPC_URL', 'wss://rpc.example'], // JSON-RPC over HTTP(S) only
  ]) {
    it(`names ${name} when it is ${JSON.stringify(value)}`, () => {
      expect(() => loadConfig(env({ [name!]: value! }))).to.throw(ConfigError, new RegExp(name!));
    });
  }

  it('production: CHAIN_ID is required with CHAIN_RPC_URL; the scheduler needs CHAIN_RPC_URL and CHAIN_PRIVATE_KEY; npm start runs no dev chain', async () => {
    expect(() => loadConfig(env({ ...PRODUCTION, CHAIN_RPC_URL: 'https://rpc.example' }))).to.throw(ConfigError, /CHAIN_ID/);
    const noChain = loadConfig(env(PRODUCTION));
    const noChainRefusal = await rejection(startAnchoringFromConfig(noChain, undefined as never, new RecordingLogger()));
    expect(noChainRefusal).to.be.instanceOf(ConfigError);
    expect(noChainRefusal.message).to.match(/CHAIN_RPC_URL/);
    await startEmbeddedChainIfNeeded(noChain, new RecordingLogger()).then(
      () => expect.fail('started a development chain in production'),
      (err: unknown) => expect(err).to.be.instanceOf(ConfigError),
    );
    const noKey = loadConfig(env({ ...PRODUCTION, CHAIN_RPC_URL: 'https://rpc.example', CHAIN_ID: '11155111' }));
    const noKeyRefusal = await rejection(startAnchoringFromConfig(noKey, undefined as never, new RecordingLogger()));
    expect(noKeyRefusal).to.be.instanceOf(ConfigError);
    expect(noKeyRefusal.message).to.match(/CHAIN_PRIVATE_KEY/);
  });

  it('outside production without CHAIN_RPC_URL the scheduler leaves files pending and says so', async () => {
    const logger = new RecordingLogger();
    expect(await startAnchoringFromConfig(loadConfig(env()), undefined as never, logger)).to.equal(undefined);
    expect(logger.entries.map((e) => e.msg)).to.deep.equal(['anchoring is off (no CHAIN_RPC_URL): signed files wait in the pending anchor batch']);
  });
});
