// Sign jobs and on-chain anchors as the pages show them. Anchoring (job statuses `anchoring`/`anchored` and
// an `anchor` object on jobs and verify results) is read defensively: the fields are used when present.
import { api, seg } from './api.js';
import { formatDate, h } from './dom.js';
import { describeError } from './messages.js';
import { saveBlob } from './files.js';

export const STATUS_LABELS = {
  queued: 'Queued',
  processing: 'Processing',
  signed: 'Signed',
  anchoring: 'Anchoring',
  anchored: 'Anchored',
  failed: 'Failed',
};

export function statusLabel(status) {
  return STATUS_LABELS[status] ?? String(status ?? 'Unknown');
}

export function statusBadge(status) {
  const known = Object.hasOwn(STATUS_LABELS, status) ? status : 'unknown';
  return h('span', { class: `badge badge--${known}` }, statusLabel(status));
}

function pick(obj, names) {
  for (const n of names) {
    const v = obj?.[n];
    if (v !== undefined && v !== null && v !== '') return v;
  }
  return undefined;
}

const CHAINS = {
  1: { name: 'Ethereum', explorer: 'https://etherscan.io/tx/' },
  10: { name: 'OP Mainnet', explorer: 'https://optimistic.etherscan.io/tx/' },
  137: { name: 'Polygon', explorer: 'https://polygonscan.com/tx/' },
  8453: { name: 'Base', explorer: 'https://basescan.org/tx/' },
  17000: { name: 'Holesky testnet', explorer: 'https://holesky.etherscan.io/tx/' },
  42161: { name: 'Arbitrum One', explorer: 'https://arbiscan.io/tx/' },
  80002: { name: 'Polygon Amoy testnet', explorer: 'https://amoy.polygonscan.com/tx/' },
  84532: { name: 'Base Sepolia testnet', explorer: 'https://sepolia.basescan.org/tx/' },
  421614: { name: 'Arbitrum Sepolia testnet', explorer: 'https://sepolia.arbiscan.io/tx/' },
  560048: { name: 'Hoodi testnet', explorer: 'https://hoodi.etherscan.io/tx/' },
  11155111: { name: 'Sepolia testnet', explorer: 'https://sepolia.etherscan.io/tx/' },
  11155420: { name: 'OP Sepolia testnet', explorer: 'https://sepolia-optimism.etherscan.io/tx/' },
  1337: { name: 'local development chain' },
  31337: { name: 'local development chain' },
};

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const DONE = new Set(['anchored', 'confirmed']);
const FAILED = new Set(['failed']);

/**
 * A normalised anchor, or null when there is none. The service's shape: { status: pending | anchoring |
 * anchored, chain_id, transaction_hash, root, proof_url, proof: { block_number, block_time, ... } | null }.
 */
export function anchorInfo(anchor) {
  if (!anchor || typeof anchor !== 'object' || anchor.status === 'not_anchored') return null;
  const proof = anchor.proof && typeof anchor.proof === 'object' ? anchor.proof : {};
  const txHash = pick(anchor, ['transaction_hash', 'tx_hash']) ?? pick(proof, ['transaction_hash']);
  const rawChain = pick(anchor, ['chain_id']) ?? pick(proof, ['chain_id']);
  const chainId = rawChain === undefined ? undefined : Number(rawChain);
  const status = String(pick(anchor, ['status']) ?? '').toLowerCase() || undefined;
  const chain = Number.isInteger(chainId) ? CHAINS[chainId] : undefined;
  const given = pick(anchor, ['explorer_url', 'transaction_url']);
  let link;
  if (typeof given === 'string' && /^https:\/\//i.test(given)) link = given;
  else if (chain?.explorer && typeof txHash === 'string' && TX_HASH.test(txHash)) link = chain.explorer + txHash;
  // The public proof, linked on this origin (the service's BASE_URL may name another address).
  const proofPath = /\/v1\/media\/anchors\/[0-9a-f]{64}$/.exec(String(anchor.proof_url ?? ''))?.[0];
  return {
    txHash: typeof txHash === 'string' ? txHash : undefined,
    chainId: Number.isInteger(chainId) ? chainId : undefined,
    chainName: chain?.name,
    block: pick(proof, ['block_number']) ?? pick(anchor, ['block_number']),
    at: pick(proof, ['block_time']) ?? pick(anchor, ['block_time', 'anchored_at']),
    root: pick(anchor, ['root']) ?? pick(proof, ['root']),
    status,
    link,
    proofPath,
    done: status ? DONE.has(status) : Boolean(txHash),
    failed: status ? FAILED.has(status) : false,
  };
}

/** Whether anchoring is part of this job's life (the service reports anchors). */
export function hasAnchoring(job) {
  return job && (Object.hasOwn(job, 'anchor') || job.status === 'anchoring' || job.status === 'anchored');
}

/** Whether the job will not change any more (anchoring still pending keeps it open). */
export function isSettled(job) {
  if (job.status === 'failed' || job.status === 'anchored') return true;
  if (job.status !== 'signed') return false;
  if (!hasAnchoring(job)) return true;
  const a = anchorInfo(job.anchor);
  return Boolean(a && (a.done || a.failed));
}

export function chainLabel(a) {
  if (a.chainName && a.chainId !== undefined) return `${a.chainName} (chain ${a.chainId})`;
  if (a.chainId !== undefined) return `chain ${a.chainId}`;
  return 'blockchain';
}

/** What checking the proof against the chain itself found (verify results), in words. */
function chainCheckWords(check) {
  if (!check || typeof check !== 'object') return undefined;
  if (check.result === 'verified') {
    const n = Number(check.confirmations);
    return `Verified on the chain: the file’s hash leads to the root written by this transaction${Number.isFinite(n) && n > 0 ? ` (${n} confirmation${n === 1 ? '' : 's'})` : ''}.`;
  }
  if (check.result === 'failed') return h('strong', { class: 'text-bad' }, `The chain does not confirm this proof: ${check.message ?? 'the check failed'}.`);
  if (check.result === 'unavailable') return `Not checked against the chain just now: ${check.message ?? 'the chain could not be read'}.`;
  return undefined;
}

/** The anchor proof as a description list, with a link to the transaction where an explorer is known. */
export function anchorDetails(anchor) {
  const a = anchorInfo(anchor);
  if (!a) return null;
  const state = a.done ? 'Anchored' : a.failed ? 'Anchoring failed' : a.status === 'anchoring' ? 'Transaction sent, waiting for confirmation' : 'Waiting for the next batch';
  const rows = [
    ['State', state],
    ['Network', a.chainId !== undefined || a.chainName ? chainLabel(a) : undefined],
    ['Transaction', a.txHash ? h('code', { class: 'hash' }, a.txHash) : undefined],
    ['Block', a.block !== undefined ? String(a.block) : undefined],
    ['Anchored at', a.at ? formatDate(a.at) : undefined],
    ['Merkle root', a.root ? h('code', { class: 'hash' }, String(a.root)) : undefined],
    ['Chain check', chainCheckWords(anchor.chain)],
  ];
  const links = [
    a.link ? h('a', { href: a.link, target: '_blank', rel: 'noopener noreferrer', class: 'external' }, 'View the transaction on a block explorer') : null,
    a.proofPath && a.done ? h('a', { href: a.proofPath, target: '_blank', rel: 'noopener', class: 'external' }, 'Anchor proof (JSON)') : null,
  ].filter(Boolean);
  return h('div', { class: 'anchor' }, definitionList(rows), links.length ? h('p', { class: 'links' }, links) : null);
}

export function definitionList(rows) {
  return h(
    'dl',
    { class: 'details' },
    rows.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => h('div', { class: 'details__row' }, h('dt', {}, k), h('dd', {}, v))),
  );
}

/** A button that downloads a signed file (through the API with the bearer header, then saved locally). */
export function downloadButton(file, { label = 'Download signed image', ariaLabel, small = false, onError } = {}) {
  const button = h('button', { type: 'button', class: ['button', 'button--primary', small && 'button--small'], 'aria-label': ariaLabel }, label);
  button.addEventListener('click', async () => {
    const text = button.textContent;
    button.disabled = true;
    button.textContent = 'Downloading…';
    try {
      const { blob, filename } = await api.download(`/v1/media/files/${seg(file.file_id)}`);
      saveBlob(blob, filename);
    } catch (err) {
      onError?.(describeError(err));
    } finally {
      button.disabled = false;
      button.textContent = text;
      button.focus();
    }
  });
  return button;
}
