import type { Knex } from 'knex';

/**
 * Manifest templates: an organisation's named manifest defaults (creator, publisher, copyright, AI training and
 * data mining choices, thumbnail), versioned.
 *
 * - manifest_templates: the current state, one row per template. `version` starts at 1 and every update adds
 *   one. Deleting sets deleted_at (the row and its versions stay, so jobs keep their reference); a name is
 *   unique among an organisation's templates that are not deleted.
 * - manifest_template_versions: every version ever saved (name and defaults), written in the same transaction
 *   as the template row; never updated.
 * - sign_jobs gains the template and version a job used (both or neither; the pair must exist) and
 *   request_manifest: the manifest as the request gave it, which the Idempotency-Key check compares. `manifest`
 *   stays the manifest the job applies (template defaults merged under the request's fields), so editing or
 *   deleting a template never changes what a job says it signed with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('manifest_templates', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.integer('version').notNullable();
    t.jsonb('manifest').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.uuid('updated_by').references('users.id').onDelete('SET NULL');
    // Millisecond precision, so a page cursor (a JS Date) compares exactly.
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true, precision: 3 });
    t.index(['org_id', 'created_at']);
  });
  await knex.raw('ALTER TABLE manifest_templates ADD CONSTRAINT manifest_templates_version_check CHECK (version >= 1)');
  await knex.raw('CREATE UNIQUE INDEX manifest_templates_org_name_live ON manifest_templates (org_id, name) WHERE deleted_at IS NULL');

  await knex.schema.createTable('manifest_template_versions', (t) => {
    t.uuid('template_id').notNullable().references('manifest_templates.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('manifest').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.primary(['template_id', 'version']);
  });

  await knex.schema.alterTable('sign_jobs', (t) => {
    t.uuid('template_id');
    t.integer('template_version');
    t.jsonb('request_manifest');
    t.foreign(['template_id', 'template_version']).references(['template_id', 'version']).inTable('manifest_template_versions');
  });
  await knex.raw('ALTER TABLE sign_jobs ADD CONSTRAINT sign_jobs_template_check CHECK ((template_id IS NULL) = (template_version IS NULL))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sign_jobs DROP CONSTRAINT sign_jobs_template_check');
  await knex.schema.alterTable('sign_jobs', (t) => {
    t.dropForeign(['template_id', 'template_version']);
    t.dropColumn('request_manifest');
    t.dropColumn('template_version');
    t.dropColumn('template_id');
  });
  await knex.schema.dropTable('manifest_template_versions');
  await knex.schema.dropTable('manifest_templates');
}
