import { Model } from 'objection';

export class Organisation extends Model {
  static override tableName = 'organisations';
  declare id: string;
  declare name: string;
  declare created_at: Date;
}
