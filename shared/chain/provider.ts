/**
 * ethers v6 JSON-RPC providers set up for anchoring:
 *
 * - the network is static (the chain id learned once with a single raw `eth_chainId`), so ethers never runs its
 *   start-up network detection, which retries forever and prints to the console while a node is down;
 * - no request cache (`cacheTimeout: -1`): by default ethers shares identical requests for 250 ms, which on a
 *   fast local chain returns a stale `eth_getTransactionCount` and so a reused nonce;
 * - no JSON-RPC batching, and a per-request timeout: a hung node fails a call instead of holding the job.
 *
 * The chain id is checked against the expected one on connect and again on every `ready()`, because the node
 * behind a URL can change (a restarted dev chain, an operator's mistake).
 *
 * ethers is imported at the first request to a node, so that a process with no chain configured never loads it.
 */
import type { FetchRequest, JsonRpcProvider } from 'ethers';

export class ChainMismatchError extends Error {
  constructor(readonly expected: number, readonly actual: number) {
    super(`the chain at CHAIN_RPC_URL reports chain id ${actual}, expected ${expected}`);
    this.name = 'ChainMismatchError';
  }
}

/** The address of an RPC endpoint fit for logs: providers often carry an API key in the path or query. */
export function redactRpcUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid url)';
  }
}

async function fetchRequest(url: string, timeoutMs: number): Promise<FetchRequest> {
  if (!/^https?:/i.test(url)) throw new Error(`anchoring needs an http(s) JSON-RPC endpoint, got ${redactRpcUrl(url)}`);
  const { FetchRequest } = await import('ethers');
  const request = new FetchRequest(url);
  request.timeout = timeoutMs;
  // ethers retries only on HTTP 429; our callers retry everything else with their own backoff.
  request.setThrottleParams({ maxAttempts: 2 });
  return request;
}

/** One `eth_chainId` without a provider (so nothing lingers or retries when the node is down). */
export async function fetchChainId(url: string, timeoutMs = 5000): Promise<number> {
  const request = await fetchRequest(url, timeoutMs);
  request.body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  request.setHeader('content-type', 'application/json');
  const response = await request.send();
  response.assertOk();
  const body = response.bodyJson as { result?: string; error?: { message?: string } };
  if (typeof body.result !== 'string') throw new Error(`eth_chainId failed: ${body.error?.message ?? 'no result'}`);
  return Number(BigInt(body.result));
}

export async function createChainProvider(url: string, chainId: number, timeoutMs = 10_000): Promise<JsonRpcProvider> {
  const { JsonRpcProvider, Network } = await import('ethers');
  const network = Network.from(chainId);
  return new JsonRpcProvider(await fetchRequest(url, timeoutMs), network, { staticNetwork: network, batchMaxCount: 1, cacheTimeout: -1 });
}

export interface ChainConnectionOptions {
  url: string;
  /** When set, a node reporting another chain id is refused. */
  expectedChainId?: number;
  timeoutMs?: number;
}

/** A lazily connected provider whose chain id is checked on every use. */
export class ChainConnection {
  #provider: JsonRpcProvider | undefined;
  #chainId: number | undefined;

  constructor(readonly options: ChainConnectionOptions) {}

  /** The provider and chain id; throws when the node is unreachable or on another chain than expected. */
  async ready(): Promise<{ provider: JsonRpcProvider; chainId: number }> {
    const { url, expectedChainId, timeoutMs = 10_000 } = this.options;
    if (!this.#provider) {
      const id = await fetchChainId(url, timeoutMs);
      if (expectedChainId !== undefined && id !== expectedChainId) throw new ChainMismatchError(expectedChainId, id);
      this.#chainId = id;
      this.#provider = await createChainProvider(url, id, timeoutMs);
      return { provider: this.#provider, chainId: id };
    }
    const now = Number(BigInt((await this.#provider.send('eth_chainId', [])) as string));
    if (now !== this.#chainId) throw new ChainMismatchError(this.#chainId!, now);
    return { provider: this.#provider, chainId: now };
  }

  /** The chain id learned on connect, if connected. */
  get chainId(): number | undefined {
    return this.#chainId;
  }

  destroy(): void {
    this.#provider?.destroy();
    this.#provider = undefined;
  }
}

/** A short description of an RPC failure for logs and API answers (no URLs, no payloads). */
export function describeChainError(err: unknown): string {
  if (err instanceof ChainMismatchError) return err.message;
  const e = err as { code?: unknown; shortMessage?: unknown; message?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e?.shortMessage === 'string' ? e.shortMessage : typeof e?.message === 'string' ? e.message.split('\n')[0]! : String(err);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).replace(/https?:\/\/\S+/g, '(rpc url)').slice(0, 300);
}
