import type { Knex } from 'knex';

/**
 * The delegated OCSP responder's certificates (role `ocsp`): issued by the sub-CA with EKU OCSPSigning and
 * id-pkix-ocsp-nocheck, their own vault key, rotated by the scheduler before they expire. The OCSP role signs its
 * answers for the sub-CA's certificates with the current one, and embeds it, as c2pa-rs needs for a stapled answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE certificates DROP CONSTRAINT certificates_role_check');
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_role_check CHECK (role IN ('root', 'sub_ca', 'leaf', 'tsa', 'ocsp'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('certificates').where({ role: 'ocsp' }).delete();
  await knex.raw('ALTER TABLE certificates DROP CONSTRAINT certificates_role_check');
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_role_check CHECK (role IN ('root', 'sub_ca', 'leaf', 'tsa'))`);
}
