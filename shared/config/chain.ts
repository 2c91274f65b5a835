/** On-chain anchoring: the chain, its account, and how files are batched and confirmed. */
import { ConfigError, int, optional, url, type Env, type NodeEnv } from './parse.js';

export interface AnchorConfig {
  /** A pending batch is sealed once it holds this many files (ANCHOR_BATCH_SIZE)... */
  batchSize: number;
  /** ...or once its oldest file has waited this long (ANCHOR_BATCH_MAX_AGE_MS). */
  batchMaxAgeMs: number;
  /** Blocks (the including block counts as 1) before a batch counts as anchored (ANCHOR_CONFIRMATIONS). */
  confirmations: number;
  /** How often the anchoring job looks at batches and the chain (ANCHOR_POLL_MS); failures back off from this. */
  pollMs: number;
  /** A transaction still unmined after this long is re-sent with higher fees (ANCHOR_RESEND_AFTER_MS). */
  resendAfterMs: number;
  /** Sealed batches not yet anchored, at most (ANCHOR_MAX_IN_FLIGHT); further files wait in the pending batch. */
  maxInFlight: number;
}

export interface ChainSettings {
  /** EVM JSON-RPC endpoint of the anchoring chain; undefined: `npm start` runs an embedded development chain. */
  chainRpcUrl: string | undefined;
  /** Key of the anchoring account (0x + 64 hex); required wherever anchor transactions are sent. */
  chainPrivateKey: string | undefined;
  /** Chain id the anchoring chain must report (CHAIN_ID); required in production with CHAIN_RPC_URL. */
  chainId: number | undefined;
  /** Port of the embedded development chain (anvil) `npm start` runs when CHAIN_RPC_URL is unset; 0: any free port. */
  chainPort: number;
  /** Batching and confirmation of on-chain anchors (shared/chain, scheduler/anchor-job.ts). */
  anchor: AnchorConfig;
}

export function chainSettings(env: Env, nodeEnv: NodeEnv): ChainSettings {
  return {
    chainRpcUrl: url(env, 'CHAIN_RPC_URL', undefined, ['http:', 'https:']),
    chainPrivateKey: chainPrivateKey(env),
    chainId: chainId(env, nodeEnv),
    chainPort: int(env, 'CHAIN_PORT', 8545, 0, 65535),
    anchor: anchorSettings(env),
  };
}

function chainPrivateKey(env: Env): string | undefined {
  const v = optional(env, 'CHAIN_PRIVATE_KEY');
  if (v === undefined) return undefined;
  // Never echo the value: it is a key.
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(v)) throw new ConfigError('CHAIN_PRIVATE_KEY', 'must be 32 bytes in hex (64 hex digits, optionally 0x-prefixed)');
  return v.startsWith('0x') ? v : `0x${v}`;
}

function chainId(env: Env, nodeEnv: NodeEnv): number | undefined {
  const id = optional(env, 'CHAIN_ID') === undefined ? undefined : int(env, 'CHAIN_ID', 0, 1, Number.MAX_SAFE_INTEGER);
  if (id === undefined && nodeEnv === 'production' && optional(env, 'CHAIN_RPC_URL') !== undefined) {
    throw new ConfigError('CHAIN_ID', 'must be set in production with CHAIN_RPC_URL (e.g. 11155111 for Sepolia), so anchors cannot go to the wrong chain');
  }
  return id;
}

function anchorSettings(env: Env): AnchorConfig {
  return {
    batchSize: int(env, 'ANCHOR_BATCH_SIZE', 1000, 1, 10_000),
    batchMaxAgeMs: int(env, 'ANCHOR_BATCH_MAX_AGE_MS', 60_000, 0, 7 * 24 * 3600_000),
    // An external chain can reorganise; the embedded single node cannot.
    confirmations: int(env, 'ANCHOR_CONFIRMATIONS', optional(env, 'CHAIN_RPC_URL') === undefined ? 1 : 3, 1, 10_000),
    pollMs: int(env, 'ANCHOR_POLL_MS', 2000, 50, 600_000),
    resendAfterMs: int(env, 'ANCHOR_RESEND_AFTER_MS', 180_000, 1000, 24 * 3600_000),
    maxInFlight: int(env, 'ANCHOR_MAX_IN_FLIGHT', 16, 1, 1000),
  };
}
