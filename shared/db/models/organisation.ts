import { Model } from 'objection';

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
