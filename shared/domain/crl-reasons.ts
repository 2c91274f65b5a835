/**
 * RFC 5280 section 5.3.1 CRLReason: the one table of revocation reasons for the whole service
 * (database values, API input, CRL entries, OCSP RevokedInfo.revocationReason).
 *
 * Names are RFC 5280's identifiers, codes the ENUMERATED values (7 is unused).
 */
export const CRL_REASONS = [
  { name: 'unspecified', code: 0 },
  { name: 'keyCompromise', code: 1 },
  { name: 'cACompromise', code: 2 },
  { name: 'affiliationChanged', code: 3 },
  { name: 'superseded', code: 4 },
  { name: 'cessationOfOperation', code: 5 },
  { name: 'certificateHold', code: 6 },
  { name: 'removeFromCRL', code: 8 },
  { name: 'privilegeWithdrawn', code: 9 },
  { name: 'aACompromise', code: 10 },
] as const;

export type CrlReason = (typeof CRL_REASONS)[number]['name'];
export type CrlReasonCode = (typeof CRL_REASONS)[number]['code'];

/** Reason names in code order, e.g. for a zod enum: `z.enum(CRL_REASON_NAMES)`. */
export const CRL_REASON_NAMES = CRL_REASONS.map((r) => r.name) as unknown as readonly [CrlReason, ...CrlReason[]];

/** name -> code. */
export const CRL_REASON_CODES: Readonly<Record<CrlReason, CrlReasonCode>> = Object.freeze(
  Object.fromEntries(CRL_REASONS.map((r) => [r.name, r.code])) as Record<CrlReason, CrlReasonCode>,
);

export function isCrlReason(value: unknown): value is CrlReason {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CRL_REASON_CODES, value);
}

export function crlReasonCode(reason: CrlReason): CrlReasonCode {
  const code = CRL_REASON_CODES[reason];
  if (code === undefined) throw new RangeError(`unknown CRL reason "${String(reason)}"`);
  return code;
}

/** code -> name; throws for codes RFC 5280 does not define (including 7). */
export function crlReasonFromCode(code: number): CrlReason {
  const entry = CRL_REASONS.find((r) => r.code === code);
  if (!entry) throw new RangeError(`unknown CRL reason code ${code}`);
  return entry.name;
}
