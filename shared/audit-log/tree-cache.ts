/**
 * The tree over the stored leaf hashes, kept in memory and grown from the database on demand (the log only grows, so
 * what is loaded stays true). A leaf whose stored hash is not 32 bytes of base64 is refused by name. After archiving,
 * the tree starts from the latest archive's frontier: the archived events are no longer in the database.
 */
import type { Knex } from 'knex';
import { auditLeafHashesInRange, latestAuditArchive } from '../db/repositories/audit-events.js';
import { MerkleLog } from './tree.js';

const PAGE = 10_000;

export class LogTreeCache {
  private tree = new MerkleLog();
  private loading: Promise<void> = Promise.resolve();

  constructor(private readonly knex: Knex) {}

  /** The tree, holding at least `size` leaves (the caller knows they are committed). */
  async upTo(size: number): Promise<MerkleLog> {
    const load = this.loading.catch(() => undefined).then(async () => {
      while (this.tree.size < size) {
        const from = this.tree.size;
        const rows = await auditLeafHashesInRange(from, Math.min(size, from + PAGE), this.knex);
        if (rows[0]?.leaf_index !== from && (await this.skipArchived())) continue;
        if (rows.length === 0) throw new Error(`audit log: leaf ${from} is missing`);
        for (const r of rows) {
          const hash = Buffer.from(r.leaf_hash, 'base64');
          if (r.leaf_index !== this.tree.size || hash.length !== 32) throw new Error(`audit log: leaf ${this.tree.size} is missing or malformed`);
          this.tree.append(hash);
        }
      }
    });
    this.loading = load;
    await load;
    return this.tree;
  }

  /** Restarts the tree from the latest archive's frontier when that archive ends beyond what is loaded. */
  private async skipArchived(): Promise<boolean> {
    const archive = await latestAuditArchive(this.knex);
    if (!archive || archive.end_index <= this.tree.size) return false;
    this.tree = MerkleLog.fromFrontier(
      archive.end_index,
      archive.frontier.map((h) => Buffer.from(h, 'base64')),
    );
    return true;
  }
}
