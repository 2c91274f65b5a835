/** Who an audit event names for a request: the signed-in user or API key, or an anonymous caller by address. */
import type { Request } from 'express';
import type { AuditActor } from '../shared/audit/vocabulary.js';
import type { Principal } from './auth/principal.js';

export function actorOf(principal: Principal): AuditActor {
  return principal.kind === 'user' ? { type: 'user', id: principal.userId } : { type: 'api_key', id: principal.apiKeyId };
}

export function anonymousActor(req: Pick<Request, 'ip' | 'socket'>): AuditActor {
  return { type: 'anonymous', address: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
}
