import type { Knex } from 'knex';

/**
 * Soft bindings (Durable Content Credentials): a 64-bit perceptual fingerprint of each signed image (the ISCC
 * Image-Code body, alg 'io.iscc.v0'), looked up by content: every stored code within Hamming distance T of a query.
 *
 * No pgvector, so the lookup is multi-index hashing (shared/softbinding/code-index.ts): the code is cut into four
 * 16-bit bands b0..b3 (b0 = the most significant 16 bits). If two codes differ in at most T bits, at least one band
 * differs in at most floor(T/4) bits, so a query probes each band's index for the band values within that radius
 * and checks the exact distance of those candidates only.
 *
 * - code: the 64-bit body as a signed int64 (two's complement of the big-endian body); value: the ISCC string.
 * - b0..b3: generated from code (so they can never disagree with it), 0..65535.
 * - soft_bindings_b0..b3: (band, code) for discoverable rows: a lookup reads the candidates' codes from the index
 *   alone (index-only scan, no heap visit) and checks the distance there; only rows within T are read from the table,
 *   through soft_bindings_code. Partial on discoverable: the public lookup can only ever see discoverable rows.
 * - soft_bindings_org: organisation deletes (the FK), and an organisation's own non-discoverable rows.
 * - Autovacuum after 10,000 + 1% inserts (default: 1,000 + 20%): index-only scans skip the heap only on pages the
 *   visibility map marks all-visible, which takes a vacuum after the insert. With the default, a 1M-row table
 *   gathers up to 200k unvacuumed rows; measured, that took a T = 16 lookup from 15 to 28 ms of CPU (14k heap
 *   fetches).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE soft_bindings (
      id uuid PRIMARY KEY,
      signed_file_id uuid NOT NULL REFERENCES signed_files (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
      alg text NOT NULL,
      code bigint NOT NULL,
      value text NOT NULL,
      b0 integer GENERATED ALWAYS AS (((code >> 48) & 65535)::integer) STORED,
      b1 integer GENERATED ALWAYS AS (((code >> 32) & 65535)::integer) STORED,
      b2 integer GENERATED ALWAYS AS (((code >> 16) & 65535)::integer) STORED,
      b3 integer GENERATED ALWAYS AS ((code & 65535)::integer) STORED,
      discoverable boolean NOT NULL DEFAULT true,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      CONSTRAINT soft_bindings_signed_file_alg UNIQUE (signed_file_id, alg)
    ) WITH (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 10000)`);
  for (const band of ['b0', 'b1', 'b2', 'b3']) {
    await knex.raw(`CREATE INDEX soft_bindings_${band} ON soft_bindings (${band}, code) WHERE discoverable`);
  }
  await knex.raw('CREATE INDEX soft_bindings_code ON soft_bindings (code) WHERE discoverable');
  await knex.raw('CREATE INDEX soft_bindings_org ON soft_bindings (org_id, discoverable)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('soft_bindings');
}
