import { Model } from 'objection';

export class RefreshToken extends Model {
  static override tableName = 'refresh_tokens';
  static override idColumn = 'jti';
  declare jti: string;
  declare family_id: string;
  declare user_id: string;
  declare expires_at: Date;
  declare used_at: Date | null;
  declare revoked_at: Date | null;
  declare created_at: Date;
}
