/**
 * The identities a verified file names, judged by the service: for an identity certificate it issued (its serial in
 * the service's records), the person's e-mail address (c2pa-rs does not report the subjectAltName), the issuing CA and the trust
 * source `service_ca`; for another trusted one, `cawg_anchor` (CAWG_TRUST_ANCHORS_FILE or, signed in, the
 * organisation's anchors).
 */
import { X509Certificate } from 'node:crypto';
import type { Knex } from 'knex';
import type { IdentityView } from '../../shared/c2pa/identities.js';
import { findCertificateBySerial } from '../../shared/db/repositories/certificates.js';

export type JudgedIdentity = IdentityView & { trust_source: 'service_ca' | 'cawg_anchor' | null };

export async function judgedIdentities(knex: Knex, identities: readonly IdentityView[] | undefined): Promise<JudgedIdentity[]> {
  return Promise.all(
    (identities ?? []).map(async (identity) => {
      const own = identity.serial ? await findCertificateBySerial(knex, identity.serial) : undefined;
      if (!own || own.role !== 'identity') return { ...identity, trust_source: identity.verdict === 'trusted' ? 'cawg_anchor' : null };
      const email = /(?:^|, )email:([^,]+)/.exec(new X509Certificate(own.der).subjectAltName ?? '')?.[1] ?? null;
      return { ...identity, email, issuer: own.issuer, trust_source: identity.verdict === 'trusted' ? 'service_ca' : null };
    }),
  );
}
