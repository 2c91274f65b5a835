import type { Knex } from 'knex';

/**
 * The parts of a fragmented MP4 rendition (an init segment, its media segments in order, and its playlists, each a file
 * of its own in the file store): the parts of an upload as they were sent, and the parts of the signed rendition the
 * job made of it. Each row belongs to exactly one upload or one signed file, and goes with it. The upload's and the
 * signed file's own row stand for the whole rendition (their storage key is the init segment's).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rendition_parts', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.uuid('upload_id').references('uploads.id').onDelete('CASCADE');
    t.uuid('signed_file_id').references('signed_files.id').onDelete('CASCADE');
    // 0: the init segment; 1..n: the media segments in order; then the playlists.
    t.integer('position').notNullable();
    t.text('role').notNullable();
    // The name it was sent under, and comes back under in the signed rendition's zip.
    t.text('filename').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('storage_key').notNullable();
    t.unique(['upload_id', 'position']);
    t.unique(['signed_file_id', 'position']);
  });
  await knex.raw("ALTER TABLE rendition_parts ADD CONSTRAINT rendition_parts_role CHECK (role IN ('init', 'fragment', 'playlist'))");
  await knex.raw('ALTER TABLE rendition_parts ADD CONSTRAINT rendition_parts_owner CHECK ((upload_id IS NULL) <> (signed_file_id IS NULL))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rendition_parts');
}
