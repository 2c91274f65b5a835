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
