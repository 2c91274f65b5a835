/** The organisations table. */
import { randomUUID } from 'node:crypto';
import { Model } from 'objection';
import type { Knex } from '../knex.js';

export class Organisation extends Model {
  static override tableName = 'organisations';
  declare id: string;
  declare name: string;
  /** Whether its signed files are discoverable in the public manifest repository by default (migration 008). */
  declare discoverable: boolean;
  /** Whether its images are signed with a soft binding (fingerprint assertion and index row) by default (migration 010). */
  declare soft_binding: boolean;
  declare created_at: Date;
}

export type OrganisationSettings = Partial<Pick<Organisation, 'name' | 'discoverable' | 'soft_binding'>>;

export async function findOrganisation(id: string, db?: Knex): Promise<Organisation | undefined> {
  return Organisation.query(db).findById(id);
}

export async function insertOrganisation(name: string, db?: Knex): Promise<Organisation> {
  return Organisation.query(db).insert({ id: randomUUID(), name });
}

/** Locks the organisation's row for the rest of the transaction: what serialises changes to its members. */
export async function lockOrganisation(id: string, trx: Knex.Transaction): Promise<void> {
  await Organisation.query(trx).findById(id).forUpdate();
}

export async function updateOrganisation(id: string, settings: OrganisationSettings, db?: Knex): Promise<void> {
  await Organisation.query(db).patch(settings).where({ id });
}
