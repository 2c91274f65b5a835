import type { RequestHandler } from 'express';
import { z } from 'zod';
import { passwordProblem } from '../shared/passwords.js';
import { badRequest } from './errors.js';

/** Extra facts a refusal written with `refuse` carries to the parse helpers. */
interface RefusalParams {
  code: string;
}

/**
 * Adds a zod issue worded in full: sent as "<field> <message>" (or the message alone at the top level) with its own
 * error code, where a schema's ordinary issues read "<field>: <message>" with the parse's code.
 */
export function refuse(ctx: z.RefinementCtx, message: string, code = 'validation_error', path: PropertyKey[] = []): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code } satisfies RefusalParams, input: undefined });
}

/** The first issue of a failed parse as the client's 400: the message names the field. */
function refusal(error: z.ZodError, defaultCode: string, separator: string) {
  const issue = error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const given = issue.code === 'custom' ? (issue.params as Partial<RefusalParams> | undefined) : undefined;
  if (given?.code) return badRequest(field ? `${field} ${issue.message}` : issue.message, given.code);
  const name = field || 'body';
  // reportInput (below): zod 4 leaves issue.input out otherwise, and every wrong type would read as "is required".
  const missing = issue.code === 'invalid_type' && issue.input === undefined;
  return badRequest(missing ? `${name} is required` : `${name}${separator}${issue.message}`, defaultCode);
}

/** Parses a JSON request body with its schema (api/schemas); the 400 (validation_error) names the first offending field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {}, { reportInput: true });
  if (result.success) return result.data;
  throw refusal(result.error, 'validation_error', ': ');
}

/** Parses path or query parameters with their schema (api/schemas); the 400 (invalid_parameter) reads "<name> <problem>". */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(params ?? {}, { reportInput: true });
  if (result.success) return result.data;
  throw refusal(result.error, 'invalid_parameter', ' ');
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
