import type { RequestHandler } from 'express';
import { z } from 'zod';
import { PASSWORD_MAX_BYTES, passwordProblem } from '../shared/passwords.js';
import { ROLES } from '../shared/roles.js';
import { badRequest } from './errors.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .regex(EMAIL, 'must be an e-mail address');

// Length limits only here; strength is judged with the e-mail at hand (checkPasswordStrength).
export const passwordField = z.string().min(1, 'is required').max(PASSWORD_MAX_BYTES * 4, 'is too long');

export const roleField = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });

export const nameField = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** An optional per-request or per-template choice: true, false, or absent/null (follow the organisation's setting). */
export function choiceOrOrgSetting(field: string, value: unknown): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw badRequest(`${field} must be true, false or null (follow the organisation)`);
  return value;
}

export function checkPasswordStrength(password: string, email: string): void {
  const problem = passwordProblem(password, email);
  if (problem) throw badRequest(`password ${problem}`, 'weak_password');
}

/** With the u flag a surrogate pair is one code point, so this matches only unpaired halves. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** What makes a string unstorable or unsafe to pass on: Postgres refuses NUL in text, and an unpaired UTF-16 surrogate has no UTF-8 form (it would be stored as U+FFFD, or refused). */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'must not contain an unpaired UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

/** The first string (or object key) in `value` with a textProblem, as [field path, problem]. */
function findBadText(value: unknown, at: string, depth = 0): [string, string] | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? [at || 'body', problem] : undefined;
  }
  if (typeof value !== 'object' || value === null || depth > 32) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const field = Array.isArray(value) ? `${at}[${key}]` : at ? `${at}.${key}` : key;
    const keyProblem = textProblem(key);
    if (keyProblem) return [field, `field name ${keyProblem}`];
    const found = findBadText(inner, field, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * One rule for every string a client sends (JSON body, query string, path): NUL and unpaired surrogates are a 400
 * naming the field, before any route sees them. Other characters are taken as sent, bidi controls and zero-width
 * characters included (right-to-left names and emoji sequences need them); the web app shows them isolated.
 */
export const rejectUnsafeText: RequestHandler = (req, _res, next) => {
  const segments = req.path.split('/');
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return next(badRequest('the path is not valid percent-encoded UTF-8', 'invalid_parameter'));
    }
    const problem = textProblem(decoded);
    if (problem) return next(badRequest(`path segment ${JSON.stringify(segment)} ${problem}`, 'invalid_parameter'));
  }
  const found = findBadText(req.query, 'query') ?? findBadText(req.body, '');
  if (found) return next(badRequest(`${found[0]} ${found[1]}`, 'invalid_text'));
  next();
};
