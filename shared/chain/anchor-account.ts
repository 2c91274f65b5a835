/**
 * The anchoring account: signs anchor transactions with nonces and fees the caller chooses, and broadcasts them.
 *
 * The wallet is deliberately not connected to a provider, so nothing in ethers picks a nonce (ethers' provider
 * shares identical requests for 250 ms by default, which on a fast chain hands two transactions the same nonce).
 * The anchoring job owns nonces: it reads the account's counts with caching off, records the nonce of every
 * transaction it signs in the database before broadcasting, and reconciles them with the chain on every run.
 */
import { Transaction, Wallet, type JsonRpcProvider, type TransactionReceipt } from 'ethers';

export type FeeQuote = { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };

export interface SignedTransaction {
  hash: string;
  raw: string;
  nonce: number;
  fees: FeeQuote;
  gasLimit: bigint;
}

/** What a node said to a raw transaction (errors other than these are thrown). */
export type BroadcastOutcome = 'sent' | 'already_known' | 'nonce_used' | 'underpriced';

export type TransactionState = { state: 'mined'; receipt: TransactionReceipt } | { state: 'pending' } | { state: 'unknown' };

/** Intrinsic gas of a transaction with this input under EIP-2028 pricing and the EIP-7623 calldata floor. */
export function intrinsicGas(data: string): bigint {
  const bytes = Buffer.from(data.replace(/^0x/, ''), 'hex');
  const zeros = bytes.filter((b) => b === 0).length;
  const nonZeros = bytes.length - zeros;
  const standard = 21000 + 4 * zeros + 16 * nonZeros;
  const floor = 21000 + 10 * (zeros + 4 * nonZeros);
  return BigInt(Math.max(standard, floor));
}

/** Classifies a node's refusal of a raw transaction; undefined for errors worth retrying as they are. */
export function classifyBroadcastError(err: unknown): Exclude<BroadcastOutcome, 'sent'> | undefined {
  const e = err as { code?: unknown; message?: unknown; shortMessage?: unknown; info?: { error?: { message?: unknown } }; error?: { message?: unknown } };
  const text = [e?.message, e?.shortMessage, e?.info?.error?.message, e?.error?.message]
    .filter((v): v is string => typeof v === 'string')
    .join(' ')
    .toLowerCase();
  if (/already known|already imported|known transaction|alreadyknown|already exists|already in (the )?(mem)?pool/.test(text)) return 'already_known';
  if (e?.code === 'NONCE_EXPIRED' || /nonce too low|nonce has already been used|nonce is too low|oldnonce/.test(text)) return 'nonce_used';
  if (e?.code === 'REPLACEMENT_UNDERPRICED' || /underpriced|replacement fee too low/.test(text)) return 'underpriced';
  return undefined;
}

const BUMP_NUMERATOR = 1125n; // +12.5%: above the 10% most nodes require to replace a pending transaction
const BUMP_DENOMINATOR = 1000n;
const bump = (v: bigint) => (v * BUMP_NUMERATOR) / BUMP_DENOMINATOR + 1n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export class AnchorAccount {
  readonly address: string;
  readonly #wallet: Wallet;

  constructor(privateKey: string) {
    this.#wallet = new Wallet(privateKey);
    this.address = this.#wallet.address;
  }

  /** Transactions mined from this account (`latest`), and that plus the node's contiguous pending ones (`pending`). */
  async nonces(provider: JsonRpcProvider): Promise<{ latest: number; pending: number }> {
    const latest = await provider.getTransactionCount(this.address, 'latest');
    const pending = await provider.getTransactionCount(this.address, 'pending');
    return { latest, pending: Math.max(latest, pending) };
  }

  async quoteFees(provider: JsonRpcProvider): Promise<FeeQuote> {
    const fee = await provider.getFeeData();
    if (fee.maxFeePerGas != null && fee.maxPriorityFeePerGas != null) {
      return { type: 2, maxFeePerGas: fee.maxFeePerGas, maxPriorityFeePerGas: fee.maxPriorityFeePerGas };
    }
    if (fee.gasPrice == null) throw new Error('the node quoted no gas price');
    return { type: 0, gasPrice: fee.gasPrice };
  }

  /** Fees for replacing a pending transaction: at least 12.5% over the old ones, and at least today's quote. */
  static replacementFees(previous: FeeQuote, current: FeeQuote): FeeQuote {
    if (previous.type === 2 && current.type === 2) {
      return { type: 2, maxFeePerGas: max(bump(previous.maxFeePerGas), current.maxFeePerGas), maxPriorityFeePerGas: max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas) };
    }
    const old = previous.type === 2 ? previous.maxFeePerGas : previous.gasPrice;
    const now = current.type === 2 ? current.maxFeePerGas : current.gasPrice;
    return { type: 0, gasPrice: max(bump(old), now) };
  }

  /** The node's estimate for a self-transaction with this input, with a 10% margin (only used gas is paid). */
  async gasLimit(provider: JsonRpcProvider, data: string): Promise<bigint> {
    const estimate = await provider.estimateGas({ from: this.address, to: this.address, data, value: 0n });
    return max(estimate + estimate / 10n, intrinsicGas(data));
  }

  /** Signs a value-0 transaction to this account itself. */
  async sign(tx: { chainId: number; nonce: number; data: string; fees: FeeQuote; gasLimit: bigint }): Promise<SignedTransaction> {
    const fields =
      tx.fees.type === 2
        ? { type: 2, maxFeePerGas: tx.fees.maxFeePerGas, maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas }
        : { type: 0, gasPrice: tx.fees.gasPrice };
    const raw = await this.#wallet.signTransaction({
      ...fields,
      chainId: BigInt(tx.chainId),
      nonce: tx.nonce,
      to: this.address,
      value: 0n,
      data: tx.data,
      gasLimit: tx.gasLimit,
    });
    return { hash: Transaction.from(raw).hash!, raw, nonce: tx.nonce, fees: tx.fees, gasLimit: tx.gasLimit };
  }

  /** Sends a signed transaction; a node that already has it, or whose nonce is used, is an outcome, not an error. */
  async broadcast(provider: JsonRpcProvider, raw: string): Promise<BroadcastOutcome> {
    try {
      await provider.send('eth_sendRawTransaction', [raw]);
      return 'sent';
    } catch (err) {
      const outcome = classifyBroadcastError(err);
      if (outcome) return outcome;
      throw err;
    }
  }

  /** Mined (with its receipt), waiting in the node's pool, or unknown to the node (dropped, or never arrived). */
  static async lookup(provider: JsonRpcProvider, hash: string): Promise<TransactionState> {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt) return { state: 'mined', receipt };
    return (await provider.getTransaction(hash)) ? { state: 'pending' } : { state: 'unknown' };
  }
}

/** Fee columns of anchor_transactions <-> FeeQuote (decimal strings: wei amounts exceed 2^53). */
export function feeColumns(fees: FeeQuote): { max_fee_per_gas: string | null; max_priority_fee_per_gas: string | null; gas_price: string | null } {
  return fees.type === 2
    ? { max_fee_per_gas: fees.maxFeePerGas.toString(), max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(), gas_price: null }
    : { max_fee_per_gas: null, max_priority_fee_per_gas: null, gas_price: fees.gasPrice.toString() };
}

export function feesFromColumns(row: { max_fee_per_gas: string | null; max_priority_fee_per_gas: string | null; gas_price: string | null }): FeeQuote {
  if (row.max_fee_per_gas !== null && row.max_priority_fee_per_gas !== null) {
    return { type: 2, maxFeePerGas: BigInt(row.max_fee_per_gas), maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas) };
  }
  return { type: 0, gasPrice: BigInt(row.gas_price ?? '0') };
}
