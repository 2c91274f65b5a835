/** bcrypt reads at most 72 bytes; longer passwords would be silently truncated, so they are refused. */
export const PASSWORD_MAX_BYTES = 72;
export const PASSWORD_MIN_LENGTH = 10;

/** Why a password is too weak, or null. */
export function passwordProblem(password: string, email?: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) return `must be at most ${PASSWORD_MAX_BYTES} bytes`;
  if (/^(.)\1*$/.test(password)) return 'must not be one repeated character';
  if (email !== undefined && password.toLowerCase() === email.toLowerCase()) return 'must differ from the e-mail address';
  return null;
}
