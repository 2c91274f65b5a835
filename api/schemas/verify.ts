import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ISCC_IMAGE_SOFT_BINDING_ALG } from '../../shared/softbinding/iscc-image.js';
import type { TrustSource as TrustSourceName } from '../../shared/trust/store.js';
import { AnchorVerification } from './anchors.js';
import { c2paManifestLinkHeader, dateTime, errorResponse, errors, json, uri, userOrApiKey, refusals } from './common.js';
import { TrainingMiningEntry } from './manifest.js';
import { formatsInWords, mediaBodies } from './media.js';
import { z } from './zod.js';

const strings = z.array(z.string());

const TrustSource = z.enum(['c2pa_trust_list', 'interim_trust_list', 'service_ca', 'operator_anchor', 'operator_allowed', 'organisation_anchor'] satisfies readonly TrustSourceName[]);

const Verification = z
  .object({
    validation_state: z
      .enum(['Trusted', 'Valid', 'Invalid', 'none'])
      .openapi({ description: 'c2pa-rs verdict under the trust in use (the service\'s roots, the trust lists, the operator\'s and, signed in, the organisation\'s anchors: signer.trust_source names who vouches); none = no manifest' }),
    active_manifest: z.string().nullable(),
    manifest: z
      .object({
        title: z.string().nullable(),
        creator: z.string().nullable(),
        claim_generator: z.string().nullable(),
        claim_version: z.number().int().nullable().openapi({ description: '1 for a C2PA 1.x claim, 2 for a v2 claim' }),
        signed_at: z.string().nullable().openapi({ description: 'signing time from the RFC 3161 timestamp, when present (same as timestamp.time)' }),
        actions: strings,
        ingredients: z.array(z.object({}).passthrough()),
        assertions: strings.openapi({ description: 'labels of the assertions c2pa-rs lists (not the hash and thumbnail assertions)' }),
        publisher: z.string().nullable().openapi({ description: 'publisher name(s): dc:publisher of cawg.metadata, or of a CreativeWork assertion in files signed before' }),
        copyright_holder: z.string().nullable().openapi({ description: 'copyright holder name(s): plus:CopyrightOwner of cawg.metadata, or CreativeWork copyrightHolder' }),
        copyright_notice: z.string().nullable(),
        training_mining: z
          .record(z.string(), TrainingMiningEntry)
          .nullable()
          .openapi({ description: 'entries of the cawg.training-mining (or C2PA 1.x c2pa.training-mining) assertion, e.g. {"cawg.ai_training": {"use": "notAllowed"}}' }),
        thumbnail: z.object({ format: z.string() }).nullable().openapi({ description: 'the claim thumbnail, when the manifest has one' }),
      })
      .partial()
      .nullable(),
    signer: z
      .object({
        subject: z.string(),
        serial: z.string(),
        issuer: z.string(),
        trust_source: TrustSource.nullable().openapi({
          description:
            "who vouches for the signer: the C2PA Trust List, the interim trust list (legacy, frozen 2026-01-01; its anchors or its allowed end-entity certificates), the service's own CA, the operator's anchors (TRUST_ANCHORS_FILE), the operator's allowed end-entity certificates (TRUST_ALLOWED_FILE), the caller's organisation's own anchors (/org/trust-anchors; POST /v1/media/verify only); null when the signer is not trusted, including a signer that chains only to an anchor for timestamps (then Valid with signingCredential.untrusted)",
        }),
        trust_list_version: z.string().nullable().openapi({ description: 'the pinned version of the list named by trust_source (trust/lists/pins.json); null for other sources' }),
      })
      .partial()
      .nullable(),
    status: z.object({ success: strings, informational: strings, failure: strings }).partial(),
    timestamp: z
      .object({
        time: dateTime.nullable().openapi({ description: 'genTime of the timestamp token' }),
        validated: z.boolean().openapi({ description: 'timeStamp.validated: the token stamps this signature and its TSA signature verifies' }),
        trusted: z.boolean().openapi({
          description:
            "the TSA certificate (EKU timeStamping) chains to a TSA anchor in use (the service's roots, the C2PA TSA Trust List, the interim anchors, TRUST_ANCHORS_FILE, TRUST_TSA_ANCHORS_FILE, signed in: the organisation's anchors), checked by the service itself from the token's certificates, for C2PA 1.x and 2.x claims, in every format; a timestamp the service could not check (its token unreadable) is never trusted",
        }),
        trust_source: TrustSource.exclude(['operator_allowed'])
          .nullable()
          .optional()
          .openapi({ description: "whose anchor the TSA's chain reaches, when the service checked it; null otherwise" }),
        codes: strings.openapi({ description: 'the timeStamp.* status codes c2pa-rs reported' }),
      })
      .nullable()
      .openapi({
        description:
          'The RFC 3161 timestamp (sigTst2) of the signature; null without one. The signing time is `time`, taken from the timestamp. With a validated and trusted timestamp the signing certificate is judged at that time, so a file stays Trusted after its certificate expires.',
      }),
    ocsp: z
      .object({
        status: z.enum(['good', 'revoked', 'unknown']).openapi({ description: "the signing certificate's status in the answer" }),
        produced_at: dateTime.openapi({ description: 'when the responder signed the answer' }),
        this_update: dateTime,
        next_update: dateTime.nullable(),
        revoked_at: dateTime.nullable(),
        revocation_reason: z.string().nullable().openapi({ description: 'RFC 5280 reason name, when the answer gives one' }),
        responder: z.string().openapi({ description: 'subject of the certificate that signed the answer (a delegated OCSP responder, or the CA itself)', example: 'CN=Media Signing Service OCSP Responder,O=Media Signing Service' }),
        verified: z.boolean().openapi({ description: "the answer checks here: signed by the signing certificate's issuer or a responder it delegated to (EKU OCSPSigning), and about that certificate" }),
        codes: strings.openapi({ description: "c2pa-rs's signingCredential.ocsp.* codes for it (signingCredential.ocsp.notRevoked, ...revoked); c2pa-rs takes only an answer from a delegated responder" }),
      })
      .nullable()
      .optional()
      .openapi({
        description:
          "The OCSP answer stapled in the signature (C2PA rVals.ocspVals): the signing certificate's revocation status as its CA's responder gave it when the file was signed, so a validator needs to ask no one; null when the signature carries none. The service staples one in every signature it makes; files from elsewhere are read the same way. Absent from permalinks kept before it was added.",
      }),
    failures: z
      .array(
        z.object({
          code: z.string(),
          explanation: z.string().nullable(),
          in: z.enum(['manifest', 'ingredient']),
          ingredient: z.string().nullable().openapi({ description: "the ingredient's title, for a failure in an ingredient" }),
          url: z.string().nullable().openapi({ description: 'the JUMBF URI c2pa-rs names' }),
        }),
      )
      .optional()
      .openapi({ description: "every failure code, with where it sits: the active manifest, or an ingredient (an ingredient's failure can make the file Invalid while status.failure shows only the signer's trust); absent from permalinks kept before it was added" }),
    summary: z.string().optional().openapi({ description: 'why the file has its state, in one line, naming the deciding failures and where they sit' }),
    manifest_source: z
      .object({
        kind: z.enum(['embedded', 'sidecar', 'remote']),
        url: z.string().nullable().openapi({ description: 'the remote manifest URL the file names (XMP dcterms:provenance)' }),
        asset_checked: z.boolean().openapi({ description: "whether the manifest's hard binding was checked against the file (false for a store sent alone, or a remote manifest not fetched)" }),
        error: z.string().optional().openapi({ description: 'why a remote manifest was not fetched (REMOTE_MANIFESTS=off, a URL the guard refuses, a failed fetch): the verdict is then Invalid with manifest.inaccessible' }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'where the manifest was read from; null without one' }),
    identities: z
      .array(
        z.object({
          label: z.string().openapi({ description: 'the assertion, e.g. cawg.identity' }),
          sig_type: z.string().nullable().openapi({ description: 'cawg.x509.cose (an X.509 identity certificate) or cawg.identity_claims_aggregation (ICA)' }),
          name: z.string().nullable().openapi({ description: "the person: the certificate's CN, or the first identity an ICA credential attests" }),
          organisation: z.string().nullable().openapi({ description: "the certificate's O" }),
          email: z.string().nullable().openapi({ description: "for identity certificates the service issued or accepted from an organisation's external CA: the e-mail address in subjectAltName (c2pa-rs does not report it)" }),
          roles: z.array(z.string()).openapi({ description: 'CAWG roles, e.g. cawg.creator' }),
          issuer: z.string().nullable().openapi({ description: "who vouches for the identity: the issuing CA's name for identity certificates the service issued or accepted from an organisation's external CA (c2pa-rs does not report the issuer), or the ICA credential's issuer; null otherwise" }),
          serial: z.string().nullable(),
          verdict: z.enum(['trusted', 'untrusted', 'invalid']).openapi({ description: 'from c2pa-rs: untrusted when only cawg.*.credential.untrusted fails (no CAWG anchor vouches), invalid on any other failure' }),
          codes: z.object({ success: z.array(z.string()), informational: z.array(z.string()), failure: z.array(z.string()) }).openapi({ description: "c2pa-rs's cawg.* codes for this assertion" }),
          trust_source: z.enum(['service_ca', 'cawg_anchor', 'organisation_anchor']).nullable().openapi({ description: "service_ca: the service's identity CA issued it; organisation_anchor: an organisation's external CA issued it and, signed in, the organisation's trust anchors vouch for it; cawg_anchor: CAWG_TRUST_ANCHORS_FILE (or, for identity certificates the service does not know, the organisation's anchors); null when untrusted" }),
        }),
      )
      .optional()
      .openapi({ description: 'the people the active manifest names (CAWG identity assertions), judged under CAWG trust (the service identity CA, CAWG_TRUST_ANCHORS_FILE and, signed in, the organisation anchors); absent from permalinks kept before it was added' }),
    revocation: z.object({
      status: z.enum(['good', 'revoked', 'expired', 'not_issued_by_service', 'no_signer']),
      revoked_at: dateTime.optional(),
      reason: z.string().optional(),
    }),
    mime_type: z.string(),
    sha256: z.string(),
    anchor: AnchorVerification,
  })
  .openapi('Verification');

const RecoveredManifest = z
  .object({
    manifest_id: z.string(),
    manifest_url: uri,
    thumbnail_url: uri.openapi({ description: 'a small JPEG of the signed image, for side-by-side comparison' }),
    recovered_by: z.enum(['fingerprint']),
    bound_to_file: z.literal(false),
    note: z.string(),
    distance: z.number().int().min(0).max(64).openapi({ description: 'Hamming distance between the ISCC Image-Codes' }),
    similarity_score: z.number().int().min(0).max(100),
    alg: z.enum([ISCC_IMAGE_SOFT_BINDING_ALG]),
    fingerprint: z.string().openapi({ description: "the signed image's ISCC Image-Code" }),
    manifest: z.object({}).passthrough().nullable(),
    signer: z.object({}).passthrough().nullable(),
    signature: z
      .enum(['trusted', 'valid', 'invalid'])
      .openapi({
        description:
          'the stored manifest signature on its own, judged under the same trust as the verdict (signer.trust_source names who vouches for a trusted one); the hard binding (data hash of the original) cannot be checked without the original and is left out',
      }),
    status: z.object({}).passthrough().openapi({ description: 'every code c2pa-rs gave the stored manifest, the hard-binding failure included' }),
    revocation: z.object({}).passthrough(),
    signed_sha256: z.string(),
    anchor: z.object({}).passthrough().nullable(),
  })
  .partial()
  .openapi('RecoveredManifest', {
    description: 'A manifest recovered by fingerprint: it belongs to a similar signed image and is NOT bound to the bytes sent (bound_to_file false).',
  });

const PublicVerification = Verification.extend({
  fingerprint: z.string().nullable().openapi({ description: "the file's ISCC Image-Code, computed when it has no manifest" }),
  recovered: z.array(RecoveredManifest).openapi({ description: 'empty for a file with an embedded manifest' }),
  recovered_note: z.string().nullable(),
  checked_at: dateTime,
  fetched: z
    .object({
      url: z.string().openapi({ description: 'the URL that answered, after redirects' }),
      manifest_link: z.string().nullable().openapi({ description: 'the manifest store the server named in its Link: <...>; rel="c2pa-manifest" header (C2PA 2.2 §15.5.3.2), looked at before the XMP reference and read with the file as its sidecar; null without one' }),
      manifest_link_error: z.string().optional().openapi({ description: 'why the linked manifest was not used: the file was then read alone (its embedded manifest, or the one its XMP names)' }),
    })
    .optional()
    .openapi({ description: 'a file verified by its URL (a JSON body {"url"}): where it came from' }),
  permalink: uri
    .nullable()
    .optional()
    .openapi({
      description:
        "the verify page of this result (public verification only); null when the verdict was read from a manifest sent with the file (part manifest) or fetched from the URL the file names (a remote manifest): such a verdict is answered but not kept, since a file's permalink shows only what the file alone proves",
    }),
}).openapi('PublicVerification');

/** A fragmented MP4 rendition's verdict: its manifest's (the init segment's) with one verdict per media segment. */
const RenditionVerification = Verification.extend({
  checked_at: dateTime,
  fragments: z
    .array(
      z.object({
        index: z.number().int().openapi({ description: 'its place among the fragment parts sent, from 1' }),
        filename: z.string(),
        sha256: z.string(),
        validation_state: Verification.shape.validation_state,
        summary: z.string(),
        status: Verification.shape.status,
        failures: Verification.shape.failures,
      }),
    )
    .openapi({ description: "one verdict per media segment, in the order sent: assertion.bmffHash.match when it is one of the manifest's Merkle tree's segments, unchanged (proof and init hash checked as c2pa-rs's fromBlobFragment checks them); a changed segment is Invalid alone" }),
}).openapi('RenditionVerification', {
  description: "A fragmented MP4 rendition's verdict: validation_state, status and failures are the rendition's as a whole (Invalid when any segment is); sha256 and anchor are the init segment's",
});

const SHA256 = /^[0-9a-f]{64}$/;

export const VerificationParams = z.object({
  sha256: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.string().regex(SHA256, 'must be 64 hexadecimal digits'))
    .openapi({ pattern: SHA256.source }),
});

/** POST /v1/verify with a JSON body: the file named by its URL. */
export const VerifyUrlInput = z
  .object({
    url: z.string().max(2048).openapi({ format: 'uri', description: 'an https URL of the file to verify, fetched through the outbound guard (public addresses only, at most 3 redirects, 10 s and MAX_UPLOAD_BYTES)' }),
  })
  .strict()
  .openapi('VerifyUrlInput');

export const VerifyQuery = z.object({
  format: z.enum(['json', 'crjson']).default('json').openapi({
    description:
      "json (default): the service's verdict. crjson: c2pa-rs's crJSON report, as c2pa-rs writes it under the trust settings verification uses (no permalink is kept); 422 no_credentials without a manifest, unreadable_credentials for a manifest c2pa-rs writes no report of (its status code, e.g. algorithm.unsupported, is in the json verdict), manifest_inaccessible for a remote manifest that could not be fetched",
  }),
});

/** What a verification that may fetch a remote manifest adds to the shared refusals. */
const retryAfter = { 'Retry-After': { schema: { type: 'integer' as const }, description: 'seconds to wait' } };
const verifyRateLimited = (others: string) =>
  errorResponse(`Too many requests from this address (429, with Retry-After): ${others}remote_fetch_rate_limited (its remote-manifest requests reached REMOTE_MANIFESTS_PER_ADDRESS this minute)`, retryAfter);
const verifyBusy = errorResponse(
  `${errors.verificationBusy.description}; or remote-manifest fetches are at a limit: remote_fetch_busy (REMOTE_MANIFESTS_CONCURRENCY) or remote_host_busy (the manifest's host had REMOTE_MANIFESTS_PER_HOST requests this minute), with Retry-After`,
  retryAfter,
);

export const verifyPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/v1/media/verify',
    tags: ['Media'],
    summary: "Validate a file's C2PA manifest against the trust in use (the service's roots, the trust lists, the operator's anchors and the organisation's own, /org/trust-anchors) and report the signer's revocation status and on-chain anchor",
    description: `Takes every format the service signs (${formatsInWords()}), each up to its kind's upload limit (MAX_UPLOAD_BYTES for images, MAX_UPLOAD_BYTES_VIDEO, MAX_UPLOAD_BYTES_AUDIO); c2pa-rs reads every file in the verification pool (VERIFY_POOL_SIZE processes of its own, VERIFY_QUEUE_LIMIT more waiting, then 503 verification_busy with Retry-After), one larger than MAX_UPLOAD_BYTES from disk rather than whole (an MP4, M4V, MOV, M4A, WAV, MP3 or FLAC in bounded memory, whatever its size: its manifest store read out of the file and validated by c2pa-rs, its BMFF hash or data hash checked against the file by streaming, with the verdict c2pa-rs gives the whole file; crjson then reports the store with that verdict on the binding). An image declaring more than MAX_IMAGE_PIXELS pixels is 422 image_too_large. A sidecar manifest store may come with the file (part manifest), or alone (part file); a remote manifest is fetched (REMOTE_MANIFESTS; kept REMOTE_MANIFESTS_CACHE_SECONDS; beyond REMOTE_MANIFESTS_CONCURRENCY fetches at once, 503 remote_fetch_busy with Retry-After; every request a fetch makes, each redirect included, counts against the client address's REMOTE_MANIFESTS_PER_ADDRESS per minute, beyond 429 remote_fetch_rate_limited, and the host's REMOTE_MANIFESTS_PER_HOST, beyond 503 remote_host_busy); an unsupported algorithm or a remote manifest that cannot be fetched is a 200 Invalid with its status code (algorithm.unsupported, manifest.inaccessible); ?format=crjson answers c2pa-rs's crJSON report instead. A file without a manifest is a 200 with validation_state "none" and, in recovered, the manifests recovered by its fingerprint (as POST /v1/verify, plus the organisation's own non-discoverable files). The file is not kept. A fragmented MP4 rendition (one part init, its fragment parts in order, up to MAX_RENDITION_FRAGMENTS) is answered with its manifest's verdict and one verdict per segment (fragments), each segment checked in bounded memory against the Merkle tree of the init segment's c2pa.hash.bmff.v3 as c2pa-rs's fromBlobFragment checks it (format=crjson is 400 crjson_not_for_renditions). For a file the service anchored, anchor.chain reports whether the file's proof recomputes to a root that is the input of the named transaction, read from the chain (not from the service's database).`,
    security: userOrApiKey,
    request: { body: mediaBodies.verify, query: VerifyQuery },
    responses: {
      200: { description: 'The verdict: of the file, or of the rendition and each of its segments', content: { 'application/json': { schema: z.union([PublicVerification, RenditionVerification]) } } },
      ...refusals(400, 401, 413, 415),
      422: errors.unreadableCredentials,
      429: verifyRateLimited(''),
      503: verifyBusy,
    },
  },
  {
    method: 'post',
    path: '/v1/verify',
    tags: ['Public verification'],
    summary: 'Verify any file without an account: its embedded Content Credentials, or the ones recovered by its fingerprint',
    description: `Every format the service signs (${formatsInWords()}), as multipart/form-data (part file, and optionally part manifest: its .c2pa sidecar) or as the body in its own media type; a .c2pa manifest store (application/c2pa) alone gets its own report. A JSON body {"url": "https://..."} names the file instead: it is fetched through the outbound guard as remote manifests are (https, public addresses only after DNS resolution, at most 3 redirects and 10 s, at most MAX_UPLOAD_BYTES, each request counted against REMOTE_MANIFESTS_PER_ADDRESS and REMOTE_MANIFESTS_PER_HOST; REMOTE_MANIFESTS=off fetches nothing: 422 url_fetch_disabled), and the answer's Link header with rel="c2pa-manifest" (C2PA 2.2 §15.5.3.2) is looked at before the XMP reference: the manifest it names is fetched and read with the file as its sidecar (the answer's fetched says which). A file whose manifest is remote is verified with the manifest fetched from the URL it names (REMOTE_MANIFESTS, through the outbound guard; kept REMOTE_MANIFESTS_CACHE_SECONDS; beyond REMOTE_MANIFESTS_CONCURRENCY fetches at once, 503 remote_fetch_busy with Retry-After; every request a fetch makes, each redirect included, counts against the client address's REMOTE_MANIFESTS_PER_ADDRESS per minute, beyond 429 remote_fetch_rate_limited, and the host's REMOTE_MANIFESTS_PER_HOST, beyond 503 remote_host_busy); one that cannot be fetched is a 200 Invalid with manifest.inaccessible, as an unsupported signature algorithm is a 200 Invalid with algorithm.unsupported. ?format=crjson answers c2pa-rs's crJSON report instead. For a file with an embedded manifest: what POST /v1/media/verify answers (c2pa-rs verdict against the service's roots, signer, revocation, on-chain anchor). For an image without one: \`recovered\`, the manifests of discoverable signed files whose ISCC Image-Code (io.iscc.v0) is within 12 bits of the file's, nearest first, each with its manifest, signer, anchor and Hamming distance, marked recovered_by fingerprint and bound_to_file false: they are not bound to these bytes. The result is kept by the file's SHA-256 for its permalink (GET /v1/verify/{sha256}) when it is what the file alone proves (its embedded manifest, or none): a verdict read from a sidecar sent with the file or from a remote manifest is answered with permalink null and not kept, and leaves the file's permalink as it was; nothing else about the file is kept. The file is read, decoded and fingerprinted in the verification pool (503 verification_busy with Retry-After when it is full; a client that hangs up has its work dropped or stopped); an image declaring more than MAX_IMAGE_PIXELS pixels is refused from its header (422 image_too_large). At most MAX_UPLOAD_BYTES. Rate limited per client (PUBLIC_RATE_LIMIT per minute, and PUBLIC_CONCURRENCY_PER_ADDRESS requests at work, each counted until its pool work has ended: 429 too_many_concurrent_requests).`,
    request: { body: { ...mediaBodies.anyFile, content: { ...mediaBodies.anyFile.content, 'application/json': { schema: VerifyUrlInput } } }, query: VerifyQuery },
    responses: {
      200: json(PublicVerification, 'The verdict'),
      ...refusals(400, 413, 415),
      422: errorResponse(
        'unreadable_credentials (C2PA data that cannot be parsed), image_too_large, media_too_complex; for a file named by URL: url_not_allowed (not https, credentials in it, or a private address), url_not_resolvable, url_fetch_failed (timeout, too large, too many redirects, an answer other than 200), url_fetch_disabled (REMOTE_MANIFESTS=off)',
      ),
      429: verifyRateLimited('rate_limited (PUBLIC_RATE_LIMIT), too_many_concurrent_requests (PUBLIC_CONCURRENCY_PER_ADDRESS), or '),
      503: verifyBusy,
    },
  },
  {
    method: 'get',
    path: '/v1/verify/{sha256}',
    tags: ['Public verification'],
    summary: 'The last public verification of a file, by its SHA-256 (the permalink of the verify page)',
    description:
      'What POST /v1/verify answered for the file alone (never a verdict read from a sidecar or remote manifest) with this hash, and when (checked_at), brought up to date as it is read: recovered manifests are looked up again by the stored fingerprint (a file no longer discoverable is not shown), and the signer\'s revocation and the file\'s anchor are read again. Only files someone verified publicly are known here; a file the service signed for an organisation that has since made it non-discoverable is 404.',
    request: { params: VerificationParams },
    responses: {
      200: { ...json(PublicVerification, 'The stored verdict'), headers: { Link: c2paManifestLinkHeader } },
      ...refusals(400, 404, 429),
    },
  },
];
