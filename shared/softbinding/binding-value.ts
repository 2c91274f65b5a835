import { base32Decode, base32Encode, decodeImageCode } from './iscc-codec.js';
import { ISCC_IMAGE_SOFT_BINDING_ALG } from './iscc-image.js';

/**
 * How an ISCC Image-Code travels as a C2PA soft binding: the assertion's `value` and the Soft Binding Resolution
 * API's `value` are "a base64-encoded string, in algorithm specific format": here, base64 of the ISCC unit's bytes
 * (its header and 64-bit body, 10 bytes), as the ISCC resolvers use it. `ISCC:EEA...` strings are accepted too.
 */

export const SOFT_BINDING_LABEL = 'c2pa.soft-binding';

/** base64 of the ISCC unit (header + body) of an `ISCC:...` Image-Code. */
export function softBindingValue(iscc: string): string {
  return base32Decode(iscc.replace(/^ISCC:/i, '')).toString('base64');
}

/** The canonical `ISCC:...` string of a binding value (base64 of the unit, or the ISCC string); RangeError if neither. */
export function isccFromBindingValue(value: string): string {
  const text = value.trim();
  if (/^ISCC:/i.test(text)) return decodeImageCode(text).iscc;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new RangeError('value is neither base64 nor an ISCC code');
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length < 3) throw new RangeError('value is too short for an ISCC Image-Code');
  // The unit as its ISCC string; decodeImageCode checks the header is an Image-Code and canonicalises it.
  return decodeImageCode(`ISCC:${base32Encode(bytes)}`).iscc;
}

/** The c2pa.soft-binding assertion data for an Image-Code (C2PA 2.x soft-binding-map). */
export function softBindingAssertion(iscc: string): { label: string; data: Record<string, unknown> } {
  return {
    label: SOFT_BINDING_LABEL,
    data: { alg: ISCC_IMAGE_SOFT_BINDING_ALG, blocks: [{ scope: {}, value: softBindingValue(iscc) }], pad: [] },
  };
}
