import type { X509Certificate } from 'node:crypto';
import type { Anchor } from './store.js';

/** Enough for any real chain; stops a loop of certificates issuing each other. */
const MAX_DEPTH = 8;

const issues = (issuer: X509Certificate, subject: X509Certificate) => subject.checkIssued(issuer) && subject.verify(issuer.publicKey);

/**
 * The anchor `leaf`'s chain reaches, building it through `intermediates` (certificates the signed object carries), each
 * link checked by name and signature (X509Certificate.checkIssued and verify); undefined when it reaches none. The
 * leaf itself may be an anchor. Validity periods are not judged here (c2pa-rs judges them at the signing time).
 */
export function anchorReached(leaf: X509Certificate, intermediates: readonly X509Certificate[], anchors: readonly Anchor[]): Anchor | undefined {
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const anchor = anchors.find((a) => a.certificate.fingerprint256 === current.fingerprint256 || issues(a.certificate, current));
    if (anchor) return anchor;
    const next = intermediates.find((c) => c.fingerprint256 !== current.fingerprint256 && issues(c, current));
    if (!next) return undefined;
    current = next;
  }
  return undefined;
}
