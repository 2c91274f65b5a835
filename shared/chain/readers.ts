/**
 * Read-only chain connections for the web role (verification), one per endpoint and process, created on first
 * use. Short timeouts: a verification request answers "unavailable" rather than hang on a dead node.
 */
import type { Config } from '../config.js';
import { ChainConnection } from './provider.js';

const connections = new Map<string, ChainConnection>();

export function chainReaderFor(config: Pick<Config, 'chainRpcUrl' | 'chainId'>): ChainConnection | undefined {
  if (!config.chainRpcUrl) return undefined;
  const key = `${config.chainRpcUrl}#${config.chainId ?? ''}`;
  let connection = connections.get(key);
  if (!connection) {
    connection = new ChainConnection({ url: config.chainRpcUrl, expectedChainId: config.chainId, timeoutMs: 5000 });
    connections.set(key, connection);
  }
  return connection;
}
