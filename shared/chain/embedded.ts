/**
 * `npm start` without CHAIN_RPC_URL: an embedded development chain (anvil) on CHAIN_PORT, its state kept in
 * DATA_DIR/chain so anchors stay checkable across restarts, and anchoring from anvil's well-known development
 * account. With CHAIN_RPC_URL set nothing is started and the development key is never used.
 */
import path from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { ANVIL_CHAIN_ID, ANVIL_DEV_PRIVATE_KEY, startAnvil } from './anvil.js';

export interface EmbeddedChain {
  /** The configuration the roles run with: CHAIN_RPC_URL, key and chain id of the embedded chain filled in. */
  config: Config;
  stop(): Promise<void>;
}

interface InfoLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export async function startEmbeddedChainIfNeeded(config: Config, logger: InfoLogger): Promise<EmbeddedChain> {
  if (config.chainRpcUrl) return { config, stop: async () => undefined };
  if (config.nodeEnv === 'production') {
    throw new ConfigError('CHAIN_RPC_URL', 'must be set in production (the embedded development chain is for local use only)');
  }
  if (config.chainPrivateKey) logger.warn({}, 'CHAIN_PRIVATE_KEY is ignored without CHAIN_RPC_URL: the embedded chain uses its development account');
  const node = await startAnvil({
    port: config.chainPort,
    chainId: ANVIL_CHAIN_ID,
    stateFile: path.join(config.dataDir, 'chain', 'anvil-state.json'),
    // Automine makes one block per transaction, so more than one confirmation needs blocks on a timer.
    mining: config.anchor.confirmations > 1 ? 1 : 'auto',
  });
  logger.info({ rpc: node.url, chainId: node.chainId }, 'embedded development chain started (anvil)');
  return {
    config: { ...config, chainRpcUrl: node.url, chainPrivateKey: ANVIL_DEV_PRIVATE_KEY, chainId: node.chainId },
    async stop() {
      await node.stop();
    },
  };
}
