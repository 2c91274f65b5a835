import type { Knex } from 'knex';

/**
 * A document's own title (PDF Info or XMP, EPUB package, OOXML core properties, OpenDocument meta: read at upload,
 * shared/media/document-title.ts), which a sign request without a title takes. Null for other media and for
 * documents that give none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploads', (t) => {
    t.text('document_title');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploads', (t) => {
    t.dropColumn('document_title');
  });
}
