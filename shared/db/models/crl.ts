import { Model } from 'objection';

/** One CRL the service issued; CRL numbers increase per issuer (migrations/002_pki.ts). */
export class Crl extends Model {
  static override tableName = 'crls';
  declare id: string;
  declare issuer_id: string;
  declare crl_number: number;
  declare this_update: Date;
  declare next_update: Date;
  declare der: Uint8Array;
  declare created_at: Date;
}
