/**
 * The users aggregate: users and their sessions (refresh_tokens, one family per sign-in). The two are one aggregate
 * because a session is a user's credential, gone with its user, and an access token's check reads both in one query.
 */
import { Model } from 'objection';
import type { Role } from '../../roles.js';
import type { Knex } from '../knex.js';

export class User extends Model {
  static override tableName = 'users';
  declare id: string;
  declare org_id: string;
  declare email: string;
  /** The person's name (CN of their identity certificate); null until given. */
  declare name: string | null;
  declare password_hash: string;
  declare role: Role;
  declare created_at: Date;
  declare updated_at: Date;

  /** The public shape of a user: never the password hash. */
  toPublic(): UserView {
    return { user_id: this.id, email: this.email, name: this.name ?? null, org_id: this.org_id, role: this.role, created_at: this.created_at.toISOString() };
  }
}

export interface UserView {
  user_id: string;
  email: string;
  name: string | null;
  org_id: string;
  role: Role;
  created_at: string;
}

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

export async function findUserByEmail(email: string, db?: Knex): Promise<User | undefined> {
  return User.query(db).findOne({ email });
}

export async function findUserById(id: string, db?: Knex): Promise<User | undefined> {
  return User.query(db).findById(id);
}

/** A user of the organisation; another organisation's user is not found. */
export async function findOrgUser(orgId: string, id: string, db?: Knex): Promise<User | undefined> {
  return User.query(db).findOne({ id, org_id: orgId });
}

export async function listUsersOfOrg(orgId: string, db?: Knex): Promise<User[]> {
  return User.query(db).where({ org_id: orgId }).orderBy('created_at');
}

export async function insertUser(user: Pick<User, 'id' | 'org_id' | 'email' | 'password_hash' | 'role'> & { name?: string | null }, db?: Knex): Promise<User> {
  return User.query(db).insert(user).returning('*');
}

export async function setUserRole(user: User, role: Role, db?: Knex): Promise<User> {
  return user.$query(db).patchAndFetch({ role, updated_at: new Date() });
}

export async function setUserName(id: string, name: string, db?: Knex): Promise<User | undefined> {
  const [user] = await User.query(db).patch({ name, updated_at: new Date() }).where({ id }).returning('*');
  return user as User | undefined;
}

export async function deleteUser(id: string, db?: Knex): Promise<void> {
  await User.query(db).deleteById(id);
}

export async function countOtherAdmins(orgId: string, userId: string, db?: Knex): Promise<number> {
  const rows = await User.query(db).where({ org_id: orgId, role: 'admin' }).whereNot({ id: userId }).count('* as n');
  return Number((rows[0] as unknown as { n: number }).n);
}

/**
 * In one query: the user an access token names and whether the token's session was signed out (logout, or a
 * refresh token replayed): an index probe on the family.
 */
export async function findAccessTokenUser(userId: string, familyId: string | undefined, db?: Knex): Promise<(User & { signed_out?: boolean }) | undefined> {
  const row = await User.query(db)
    .findById(userId)
    .select('users.*', User.raw('EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = ? AND r.revoked_at IS NOT NULL) AS signed_out', [familyId ?? null]));
  return row as (User & { signed_out?: boolean }) | undefined;
}

export async function insertRefreshToken(token: Pick<RefreshToken, 'jti' | 'family_id' | 'user_id' | 'expires_at'>, db?: Knex): Promise<void> {
  await RefreshToken.query(db).insert(token);
}

export async function findRefreshToken(jti: string, db?: Knex): Promise<RefreshToken | undefined> {
  return RefreshToken.query(db).findById(jti);
}

/** The token, locked for the rest of the transaction so that two presentations of it take turns. */
export async function lockRefreshToken(jti: string, trx: Knex.Transaction): Promise<RefreshToken | undefined> {
  return RefreshToken.query(trx).findById(jti).forUpdate();
}

export async function markRefreshTokenUsed(jti: string, db?: Knex): Promise<void> {
  await RefreshToken.query(db).patch({ used_at: new Date() }).where({ jti });
}

/** Revokes the not yet revoked refresh tokens of one session (family) of a user, or of every session of a user. */
export async function revokeRefreshTokens(scope: { familyId: string; userId?: string } | { allOf: string }, db?: Knex): Promise<void> {
  const query = RefreshToken.query(db).patch({ revoked_at: new Date() }).whereNull('revoked_at');
  if ('allOf' in scope) await query.where({ user_id: scope.allOf });
  else await query.where({ family_id: scope.familyId, ...(scope.userId === undefined ? {} : { user_id: scope.userId }) });
}
