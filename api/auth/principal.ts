import type { Role } from '../../shared/roles.js';

/** Who is calling: a signed-in user or an organisation's API key. Every org-scoped query filters by orgId. */
export type Principal =
  | { kind: 'user'; userId: string; orgId: string; role: Role; email: string; name?: string | null; /** The session (refresh-token family) of the access token; absent on tokens issued before sessions were named. */ familyId?: string }
  /** userId: the person an admin bound the key to (it may sign as them); null for a key of the organisation alone. */
  | { kind: 'api_key'; apiKeyId: string; orgId: string; role: Role; userId: string | null };

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      principal?: Principal;
    }
  }
}

export function principalOf(req: Express.Request): Principal {
  if (!req.principal) throw new Error('route is missing authenticate()');
  return req.principal;
}
