import type { Knex } from 'knex';
import { ConfigError, type Config } from '../shared/config.js';
import type { AnchorJob } from './anchor-job.js';
import type { JobLogger } from './crl-job.js';

/**
 * The anchoring job as the configuration asks for it. Without CHAIN_RPC_URL anchoring is off (signed files wait in
 * the pending batch until a chain is configured); production refuses that, and a chain without CHAIN_PRIVATE_KEY.
 * The job and its account (ethers) are imported only when a chain is configured.
 */
export async function startAnchoringFromConfig(
  config: Pick<Config, 'nodeEnv' | 'baseUrl' | 'databaseUrl' | 'chainRpcUrl' | 'chainPrivateKey' | 'chainId' | 'anchor'>,
  knex: Knex,
  logger: JobLogger,
): Promise<AnchorJob | undefined> {
  if (!config.chainRpcUrl) {
    if (config.nodeEnv === 'production') throw new ConfigError('CHAIN_RPC_URL', 'must be set in production: signed files are anchored on chain');
    logger.warn({}, 'anchoring is off (no CHAIN_RPC_URL): signed files wait in the pending anchor batch');
    return undefined;
  }
  if (!config.chainPrivateKey) {
    throw new ConfigError('CHAIN_PRIVATE_KEY', 'must be set when CHAIN_RPC_URL is set: it signs (and pays for) the anchor transactions');
  }
  const [{ AnchorAccount }, { ChainConnection, redactRpcUrl }, { startAnchorJob }] = await Promise.all([
    import('../shared/chain/anchor-account.js'),
    import('../shared/chain/provider.js'),
    import('./anchor-job.js'),
  ]);
  const account = new AnchorAccount(config.chainPrivateKey);
  const chain = new ChainConnection({ url: config.chainRpcUrl, expectedChainId: config.chainId });
  logger.info(
    { rpc: redactRpcUrl(config.chainRpcUrl), chainId: config.chainId ?? 'as reported by the node', account: account.address, ...config.anchor },
    'anchoring scheduled',
  );
  return startAnchorJob({ knex, chain, account, settings: config.anchor, baseUrl: config.baseUrl, useLock: config.databaseUrl !== undefined, logger });
}
