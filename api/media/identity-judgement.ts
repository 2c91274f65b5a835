/**
 * The identities a verified file names, judged by the service:
 * - for an identity certificate it issued (its issuer and serial in the service's records), the person's e-mail address (c2pa-rs
 *   does not report the subjectAltName), the issuing CA and the trust source `service_ca`;
 * - for one a person took from their organisation's external CA (an accepted identity request with that issuer, serial
 *   and name), the e-mail address and issuer likewise, and the trust source that vouches: `cawg_anchor` when its chain
 *   reaches CAWG_TRUST_ANCHORS_FILE, else `organisation_anchor` (signed in, the organisation's anchors);
 * - for another trusted one, `cawg_anchor` (CAWG_TRUST_ANCHORS_FILE or, signed in, the organisation's anchors).
 * Any other identity keeps the e-mail address and issuer read from its own certificate in the file
 * (shared/c2pa/identity-signature.ts), which for the service's own are the same.
 */
import { X509Certificate } from 'node:crypto';
import type { Knex } from 'knex';
import type { IdentityView } from '../../shared/c2pa/identities.js';
import { findCertificateBySerial } from '../../shared/db/repositories/certificates.js';
import { acceptedIdentitiesBySerial, type AcceptedExternalCertificate } from '../../shared/db/repositories/external-certificates.js';
import { emailAddressesOf, readCertificate } from '../../shared/pki/certificate.js';
import { externalChainDer } from '../../shared/pki/external-certificates.js';
import { anchorReached } from '../../shared/trust/chain.js';
import type { TrustStore } from '../../shared/trust/store.js';

export type IdentityTrustSource = 'service_ca' | 'cawg_anchor' | 'organisation_anchor';
export type JudgedIdentity = IdentityView & { trust_source: IdentityTrustSource | null };

const emailOf = (der: Uint8Array) => emailAddressesOf(readCertificate(der))[0] ?? null;

/** An external identity certificate as verify shows it. */
function externalIdentity(identity: IdentityView, store: TrustStore, c: AcceptedExternalCertificate): JudgedIdentity {
  const [leaf, ...rest] = externalChainDer(c).map((der) => new X509Certificate(der));
  const source = anchorReached(leaf!, rest, store.cawgAnchors) ? 'cawg_anchor' : 'organisation_anchor';
  return { ...identity, email: emailOf(new Uint8Array(leaf!.raw)), issuer: c.certificate_issuer, trust_source: identity.verdict === 'trusted' ? source : null };
}

export async function judgedIdentities(knex: Knex, store: TrustStore, identities: readonly IdentityView[] | undefined): Promise<JudgedIdentity[]> {
  return Promise.all(
    (identities ?? []).map(async (identity): Promise<JudgedIdentity> => {
      // A certificate is its issuer and serial (RFC 5280): another CA's with the same serial is not this one.
      const own = identity.serial && identity.issuer ? await findCertificateBySerial(knex, identity.serial) : undefined;
      if (own?.role === 'identity' && own.issuer === identity.issuer) {
        return { ...identity, email: emailOf(own.der), issuer: own.issuer, trust_source: identity.verdict === 'trusted' ? 'service_ca' : null };
      }
      const accepted = identity.serial && identity.name && identity.issuer ? await acceptedIdentitiesBySerial(knex, identity.serial, identity.name) : [];
      const external = accepted.find((c) => c.certificate_issuer === identity.issuer);
      if (external) return externalIdentity(identity, store, external);
      return { ...identity, trust_source: identity.verdict === 'trusted' ? 'cawg_anchor' : null };
    }),
  );
}
