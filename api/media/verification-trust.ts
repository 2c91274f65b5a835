import type { Knex } from 'knex';
import type { KindTrust, ReadOptions } from '../../shared/c2pa/settings.js';
import { unrevokedRoots } from '../../shared/db/repositories/certificates.js';
import { organisationTrustAnchorPems } from '../../shared/db/repositories/organisation-trust-anchors.js';
import { derToPem } from '../../shared/pki/pem.js';
import { LIST_SOURCES } from '../../shared/trust/lists.js';
import { listVersion, processTrustStore, type TrustConfig, type TrustSource, type TrustStore } from '../../shared/trust/store.js';

/**
 * What a verification is judged by, each list for what it vouches for (c2pa-rs's trust.anchors[] kinds):
 * - claim signers (manifest): the service's roots, TRUST_ANCHORS_FILE, TRUST_ALLOWED_FILE (end-entity certificates),
 *   the C2PA Trust List, the interim anchors and allowed list and, signed in, the organisation's anchors;
 * - timestamps (tsa): the service's roots, TRUST_ANCHORS_FILE, TRUST_TSA_ANCHORS_FILE, the C2PA TSA Trust List, the
 *   interim anchors (one store for signers and TSAs, as its store.cfg says) and the organisation's anchors.
 * The interim list's store.cfg (accepted EKUs) applies to every list: c2pa-rs reads it for all or none.
 */

/**
 * The service's own anchors: every root CA the service has issued and not revoked, expired or not (a file signed and
 * timestamped under an older root still validates).
 */
export async function trustAnchorsPem(knex: Knex): Promise<string[]> {
  const roots = await unrevokedRoots(knex);
  return roots.map((r) => derToPem(r.der));
}

/** One source's claim-signer list alone: the read that tells whether it is the one vouching for a signer. */
export interface TrustCandidate {
  source: TrustSource;
  trust: ReadOptions;
}

export interface VerificationTrust {
  /** Everything in use, for the verdict. */
  all: ReadOptions & { lists: readonly KindTrust[] };
  /** Each source's claim-signer list alone, in the order they are asked (see verificationTrust). */
  candidates: TrustCandidate[];
  /** The anchors a timestamp's TSA must chain to (checkedTimestamp). */
  tsaAnchors: { pem: string; source: TrustSource }[];
}

/**
 * The order sources are asked in (see verificationTrust). The service's own roots come last: a signer the service
 * issued is known by its records before any read (revocationOf), so for any other one they are the least likely.
 */
const CLAIM_SOURCES: readonly TrustSource[] = ['operator_anchor', 'operator_allowed', 'c2pa_trust_list', 'interim_trust_list', 'organisation_anchor', 'service_ca'];

const pemsOf = (anchors: readonly { pem: string; source: TrustSource }[], source: TrustSource) => anchors.filter((a) => a.source === source).map((a) => a.pem);

/** A list's name in c2pa-rs's report: where a public list is published, else the source. */
function uriOf(source: TrustSource, kind: 'manifest' | 'tsa'): string {
  const list = source === 'c2pa_trust_list' ? 'official' : source === 'interim_trust_list' ? 'interim' : undefined;
  const fileKind = kind === 'tsa' && list === 'official' ? 'tsa_anchors' : 'claim_anchors';
  return (list && LIST_SOURCES[list].files.find((f) => f.kind === fileKind)?.url) ?? `urn:mss:trust:${source}`;
}

/** Each source's claim-signer list (anchors and allowed certificates), in CLAIM_SOURCES order; empty ones left out. */
function claimLists(store: TrustStore, serviceRootsPem: readonly string[], organisationPem: readonly string[]): { source: TrustSource; list: KindTrust }[] {
  const anchorsOf = (source: TrustSource) =>
    source === 'service_ca' ? serviceRootsPem : source === 'organisation_anchor' ? organisationPem : pemsOf(store.claimAnchors, source);
  return CLAIM_SOURCES.map((source) => ({
    source,
    list: { kind: 'manifest' as const, anchorsPem: [...anchorsOf(source)], allowedPem: pemsOf(store.allowed, source), uri: uriOf(source, 'manifest') },
  })).filter(({ list }) => list.anchorsPem.length > 0 || list.allowedPem.length > 0);
}

function composed(store: TrustStore, serviceRootsPem: readonly string[], organisationPem: readonly string[]): VerificationTrust {
  const claims = claimLists(store, serviceRootsPem, organisationPem);
  const tsaAnchors = [
    ...serviceRootsPem.map((pem) => ({ pem, source: 'service_ca' as const })),
    ...store.tsaAnchors.map(({ pem, source }) => ({ pem, source })),
    ...organisationPem.map((pem) => ({ pem, source: 'organisation_anchor' as const })),
  ];
  const tsaLists = [...new Set(tsaAnchors.map((a) => a.source))].map((source): KindTrust => ({ kind: 'tsa', anchorsPem: pemsOf(tsaAnchors, source), uri: uriOf(source, 'tsa') }));
  // People's identity certificates (CAWG): the service's roots (its identity CA), CAWG_TRUST_ANCHORS_FILE, the organisation's anchors.
  const cawgAnchors = [...serviceRootsPem, ...store.cawgAnchors.map((a) => a.pem), ...organisationPem];
  const cawgLists: KindTrust[] = cawgAnchors.length ? [{ kind: 'cawg', anchorsPem: cawgAnchors, uri: 'urn:mss:trust:cawg' }] : [];
  const trustConfig = store.ekuConfig;
  return {
    all: { lists: [...claims.map((c) => c.list), ...tsaLists, ...cawgLists], trustConfig },
    // The timestamp's TSA is judged apart (tsaAnchors); these reads ask only about the claim signer.
    candidates: claims.map(({ source, list }) => ({ source, trust: { lists: [list], trustConfig, timestampTrust: false } })),
    tsaAnchors,
  };
}

/** One entry per store object (a reload makes a new one): the trust of its last service roots. */
const memo = new WeakMap<TrustStore, { rootsKey: string; trust: VerificationTrust }>();

/**
 * What c2pa-rs judges a verified file by (see the header): the service's roots, the trust lists in use (TRUST_LISTS),
 * the operator's files and, for a signed-in caller, its organisation's own anchors (/org/trust-anchors, for signers and
 * timestamps alike, as TRUST_ANCHORS_FILE is). c2pa-rs 0.91 does not keep the kinds apart for claim signers (a TSA
 * anchor makes a claim signer trusted too), so `candidates` gives each source's claim-signer list alone, to name who
 * vouches (and to tell a signer vouched for by no claim-signer list): the organisation's after the public lists, so a
 * public list that also vouches is the one named. Memoized per trust store and service roots without an organisation's anchors.
 */
export function verificationTrust(serviceRootsPem: readonly string[], store: TrustStore, organisationAnchorsPem: readonly string[] = []): VerificationTrust {
  if (organisationAnchorsPem.length > 0) return composed(store, serviceRootsPem, organisationAnchorsPem);
  const rootsKey = serviceRootsPem.join('');
  const hit = memo.get(store);
  if (hit?.rootsKey === rootsKey) return hit.trust;
  const trust = composed(store, serviceRootsPem, []);
  memo.set(store, { rootsKey, trust });
  return trust;
}

/**
 * The trust a verification is judged by (see verificationTrust): `orgId` only for a signed-in caller, whose
 * organisation's anchors then apply. A trust store that cannot be loaded is a 503 trust_lists_unavailable.
 */
export async function trustInUse(knex: Knex, config: TrustConfig, orgId?: string): Promise<{ store: TrustStore; serviceRoots: string[]; trust: VerificationTrust }> {
  const store = processTrustStore(config);
  const [serviceRoots, organisation] = await Promise.all([trustAnchorsPem(knex), orgId ? organisationTrustAnchorPems(orgId, knex) : []]);
  return { store, serviceRoots, trust: verificationTrust(serviceRoots, store, organisation) };
}

/** Who vouches for the signer, and the list's pinned version when it is a list. */
export interface SignerTrust {
  trust_source: TrustSource | null;
  trust_list_version: string | null;
}

const LIST_OF = { c2pa_trust_list: 'official', interim_trust_list: 'interim' } as const;

export function signerTrust(store: TrustStore, source: TrustSource | null): SignerTrust {
  return { trust_source: source, trust_list_version: source === 'c2pa_trust_list' || source === 'interim_trust_list' ? listVersion(store, LIST_OF[source]) : null };
}
