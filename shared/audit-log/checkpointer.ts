/**
 * Signs the audit log's checkpoints (the scheduler runs it every AUDIT_CHECKPOINT_SECONDS): when the log grew since
 * the last checkpoint, the tree over every committed event is computed, its head signed with the audit key (held by
 * the scheduler's vault), and the checkpoint stored in one transaction with an anchor leaf carrying its root, so the
 * root goes on chain with the next anchor batch.
 */
import type { Knex } from 'knex';
import { insertHashAnchorLeaf } from '../db/repositories/anchors.js';
import { auditLogSize, insertAuditCheckpoint, latestAuditCheckpoint } from '../db/repositories/audit-events.js';
import type { VaultKey } from '../vault/types.js';
import { signCheckpoint } from './checkpoint-note.js';
import { LogTreeCache } from './tree-cache.js';

export interface CheckpointerDeps {
  knex: Knex;
  key: VaultKey;
  origin: string;
}

export interface Checkpointer {
  /** Signs a checkpoint if the log grew; answers its size, or undefined when there was nothing new. */
  checkpoint(): Promise<number | undefined>;
}

export function createCheckpointer(deps: CheckpointerDeps): Checkpointer {
  const tree = new LogTreeCache(deps.knex);
  return {
    async checkpoint() {
      const size = await auditLogSize(deps.knex);
      const latest = await latestAuditCheckpoint(deps.knex);
      if (size === 0 || (latest && latest.tree_size >= size)) return undefined;
      const root = (await tree.upTo(size)).root(size);
      const note = await signCheckpoint({ origin: deps.origin, treeSize: size, root }, deps.key);
      await deps.knex.transaction(async (trx) => {
        const anchorLeafId = await insertHashAnchorLeaf(root.toString('hex'), trx);
        await insertAuditCheckpoint({ tree_size: size, root_hash: root.toString('base64'), note, public_key: Buffer.from(deps.key.publicKeySpki).toString('base64'), anchor_leaf_id: anchorLeafId }, trx);
      });
      return size;
    },
  };
}
