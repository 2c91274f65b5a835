/**
 * What an anchor transaction carries. The choice: a plain transaction from the anchoring account to itself, value 0,
 * whose input data (calldata) is
 *
 *   0x6d737361 ("mssa", media signing service anchor) || 0x01 (format version) || root (32 bytes)   = 37 bytes
 *
 * Why not a contract: a self-transaction needs no deployment, works the same on every EVM chain (a public test
 * network, an L2, a local node), and is the cheapest way to put 32 bytes on chain (21000 gas plus calldata: 22480
 * gas under EIP-7623 pricing). The input data of a mined transaction is part of the chain and readable by anyone
 * with `eth_getTransactionByHash`, so checking a proof needs no ABI and no event logs: decode the input, compare
 * the root. An event log from a contract would cost more (a call, a LOG2) and add a contract address to trust.
 */
import { hash32 } from './merkle.js';

/** "mssa" + version 1. */
export const ANCHOR_CALLDATA_PREFIX = '0x6d73736101';

export function anchorCalldata(root: string | Uint8Array): string {
  return `${ANCHOR_CALLDATA_PREFIX}${hash32(root).toString('hex')}`;
}

/** The root in an anchor transaction's input data (lowercase hex, no 0x), or null when it is not one. */
export function rootFromCalldata(data: string | null | undefined): string | null {
  if (typeof data !== 'string') return null;
  const d = data.toLowerCase();
  const m = /^0x6d73736101([0-9a-f]{64})$/.exec(d);
  return m ? m[1]! : null;
}
