import { Model } from 'objection';
import type { Role } from '../../roles.js';

export class User extends Model {
  static override tableName = 'users';
  declare id: string;
  declare org_id: string;
  declare email: string;
  declare password_hash: string;
  declare role: Role;
  declare created_at: Date;
  declare updated_at: Date;

  /** The public shape of a user: never the password hash. */
  toPublic(): { user_id: string; email: string; org_id: string; role: Role; created_at: string } {
    return { user_id: this.id, email: this.email, org_id: this.org_id, role: this.role, created_at: this.created_at.toISOString() };
  }
}
