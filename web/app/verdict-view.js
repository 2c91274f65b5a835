// How a verification report reads: the verdict in words, what the manifest says, the signer and its revocation
// status, the on-chain anchor, the technical details. Used by the app's Verify page and the public one.
import { formatDate, h } from './dom.js';
import { anchorDetails, definitionList } from './jobs.js';
import { CHOICE_WORDS, TRAINING_USES } from './templates.js';

const VERDICTS = {
  Trusted: {
    kind: 'good',
    icon: '✓',
    title: 'Trusted',
    text: 'The Content Credentials are intact and were signed by a certificate this service trusts.',
  },
  Valid: {
    kind: 'warn',
    icon: '!',
    title: 'Not trusted',
    text: 'The Content Credentials are intact, but their signer does not chain to a certificate this service trusts.',
  },
  Invalid: {
    kind: 'bad',
    icon: '✕',
    title: 'Invalid',
    text: 'The Content Credentials do not match the file: it was changed after signing, or the signature is broken.',
  },
  none: {
    kind: 'neutral',
    icon: '?',
    title: 'No Content Credentials',
    text: 'This file carries no C2PA manifest, so nothing can be said about where it came from.',
  },
};

/** Who vouches for a trusted signer (the report's signer.trust_source), in words. */
const TRUST_SOURCES = {
  c2pa_trust_list: (version) => `Trusted: on the C2PA Trust List${version ? ` (${version})` : ''}.`,
  interim_trust_list: () => 'Trusted through the interim list, frozen 2026-01-01.',
  service_ca: () => 'Trusted: signed under this service’s own certificate authority.',
  operator_anchor: () => 'Trusted: signed under a certificate authority this service’s operator added.',
  operator_allowed: () => 'Trusted: its signing certificate is one this service’s operator trusts by name.',
  organisation_anchor: () => 'Trusted: signed under a certificate authority your organisation added (its trust anchors).',
};

/** The verdict's sentence: for a signer, who vouches for it (or that no list this service uses does). */
function verdictText(report, v) {
  const source = report.signer?.trust_source;
  if (report.validation_state === 'Trusted' && TRUST_SOURCES[source]) return `${v.text} ${TRUST_SOURCES[source](report.signer.trust_list_version)}`;
  if (report.validation_state === 'Valid') return `${v.text} Not on any trust list this service uses.`;
  return v.text;
}

/** A CAWG role in a word: cawg.creator -> creator. */
const roleWord = (role) => role.replace(/^cawg\./, '');

/**
 * One person the file names (a CAWG identity assertion), in words: "Jane Doe (creator), identity verified by Daily
 * Planet Issuing CA", or why it is not verified.
 */
/** A DN ("CN=Example Issuing CA,O=Example") is named by its CN. */
const cnOf = (dn) => /(?:^|,)\s*CN=([^,]+)/.exec(dn)?.[1] ?? dn;

export function identityWords(i) {
  const who = `${i.name ?? 'Someone'}${i.roles?.length ? ` (${i.roles.map(roleWord).join(', ')})` : ''}`;
  const issuer = i.issuer ? cnOf(i.issuer) : 'a trusted identity provider';
  if (i.verdict === 'trusted') return `${who}, identity verified by ${issuer}`;
  if (i.verdict === 'untrusted') return `${who}, identity not verified: no identity provider this service trusts vouches for it`;
  return `${who}, identity invalid (${(i.codes?.failure ?? []).join(', ')})`;
}

/**
 * The OCSP answer stapled in the signature (the report's `ocsp`), in words: "Revocation checked at signing: good, by
 * Example OCSP Responder". Undefined when the signature carries none.
 */
export function stapledOcspWords(ocsp) {
  if (!ocsp) return undefined;
  const revoked = ocsp.status === 'revoked';
  const status = `${ocsp.status}${revoked && ocsp.revoked_at ? ` since ${formatDate(ocsp.revoked_at)}` : ''}${revoked && ocsp.revocation_reason ? ` (${ocsp.revocation_reason})` : ''}`;
  const unchecked = ocsp.verified ? '' : '; the answer does not check against the file’s certificate chain';
  return `Revocation checked at signing: ${status}, by ${cnOf(ocsp.responder)}${unchecked}.`;
}

/** c2pa-rs's codes for content that no longer matches its hard binding (byte ranges, ISO media boxes, other boxes). */
const HASH_MISMATCHES = new Set(['assertion.dataHash.mismatch', 'assertion.bmffHash.mismatch', 'assertion.boxesHash.mismatch']);

/** What the file holds, in a word: image, video or audio. */
function mediaNoun(mimeType) {
  return mimeType?.startsWith('video/') ? 'video' : mimeType?.startsWith('audio/') ? 'audio' : 'image';
}

/** Plain words for the c2pa-rs failure codes a person is likely to meet (hash mismatches: see failureWords). */
const FAILURES = {
  'assertion.hashedURI.mismatch': 'Part of the manifest changed after it was signed.',
  'claimSignature.mismatch': 'The signature does not match the manifest.',
  'claimSignature.missing': 'The manifest has no signature.',
  'signingCredential.untrusted': 'The signing certificate is not trusted by this service.',
  'signingCredential.revoked': 'The signing certificate has been revoked.',
  'signingCredential.expired': 'The signing certificate had expired when the file was signed.',
  'signingCredential.invalid': 'The signing certificate is not valid for signing.',
  'timeStamp.mismatch': 'The signature’s timestamp does not match.',
  'timeStamp.untrusted': 'The signature’s timestamp comes from an untrusted authority.',
  'manifest.missing': 'The manifest referred to is missing.',
  'algorithm.unsupported': 'The signature uses no algorithm, or one that is not supported: it cannot be checked.',
  'manifest.inaccessible': 'The file’s credentials are stored elsewhere (a remote manifest) and could not be fetched.',
};

/** Where the manifest was read from, in words (nothing for the usual case: embedded in the file). */
function sourceWords(source) {
  if (!source || source.kind === 'embedded') return null;
  if (source.kind === 'sidecar') {
    return source.asset_checked
      ? 'Read from the sidecar manifest (.c2pa) sent with the file, and checked against the file.'
      : 'A manifest store on its own: who signed it and what it says, but not whether any file matches it.';
  }
  if (source.error) return `The file names a remote manifest (${source.url}) that was not fetched: ${source.error}.`;
  return `Read from the remote manifest the file names (${source.url}), and checked against the file.`;
}

const ACTIONS = {
  'c2pa.created': 'Created',
  'c2pa.opened': 'Opened from an earlier version',
  'c2pa.edited': 'Edited',
  'c2pa.placed': 'Placed into a composition',
  'c2pa.cropped': 'Cropped',
  'c2pa.resized': 'Resized',
  'c2pa.color_adjustments': 'Colour adjusted',
  'c2pa.converted': 'Converted to another format',
  'c2pa.published': 'Published',
};

export function revocationWords(r) {
  switch (r?.status) {
    case 'good':
      return 'Not revoked (checked against this service’s revocation data).';
    case 'revoked':
      return `Revoked on ${formatDate(r.revoked_at)}${r.reason && r.reason !== 'unspecified' ? ` (reason: ${r.reason})` : ''}.`;
    case 'expired':
      return 'The certificate has expired since; it is not revoked.';
    case 'not_issued_by_service':
      return 'The certificate was not issued by this service, so its revocation status is unknown here.';
    case 'no_signer':
      return 'There is no signer to check.';
    default:
      return 'Unknown.';
  }
}

function signedAtWords(report) {
  const t = report.timestamp;
  const time = t?.time ?? report.manifest?.signed_at;
  if (!time) return 'Not timestamped: the time of signing is not attested.';
  if (!t) return formatDate(time);
  if (t.validated && t.trusted) return `${formatDate(time)}, attested by a trusted time-stamp authority`;
  return `${formatDate(time)} (the timestamp could not be trusted)`;
}

/** An ISO 8601 duration as a player shows it: PT12.5S is 0:12.5, PT1H2M3S is 1:02:03. */
function durationWords(iso) {
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso ?? '');
  if (!match || iso === 'PT') return undefined;
  const [hours, minutes, seconds] = [Number(match[1] ?? 0), Number(match[2] ?? 0), Number(match[3] ?? 0)];
  const total = hours * 3600 + minutes * 60 + seconds;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const sec = `${s < 10 ? '0' : ''}${s.toFixed(3).replace(/\.?0+$/, '')}`;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

function copyrightWords(m) {
  if (m.copyright_notice && m.copyright_holder && !m.copyright_notice.includes(m.copyright_holder)) return `${m.copyright_notice} (holder: ${m.copyright_holder})`;
  return m.copyright_notice ?? m.copyright_holder ?? undefined;
}

/** The AI training and data mining choices, one line per use; constrained ones with their conditions. */
function trainingList(entries) {
  if (!entries) return undefined;
  return h(
    'ul',
    { class: 'plain' },
    Object.entries(entries).map(([use, e]) =>
      h('li', {}, `${TRAINING_USES[use] ?? TRAINING_USES[use.replace(/^c2pa\./, 'cawg.')] ?? use}: ${CHOICE_WORDS[e.use] ?? e.use}${e.constraint_info ? ` (${e.constraint_info})` : ''}`),
    ),
  );
}

function failureWords(code, mimeType) {
  if (HASH_MISMATCHES.has(code)) return `The ${mediaNoun(mimeType)} data changed after it was signed.`;
  return FAILURES[code] ?? null;
}

function failureList(codes, mimeType) {
  if (!codes?.length) return null;
  const words = [...new Set(codes.map((c) => failureWords(c, mimeType)).filter(Boolean))];
  const other = codes.some((c) => !failureWords(c, mimeType));
  return h(
    'div',
    { class: 'failures' },
    h('h3', {}, 'What is wrong'),
    h('ul', {}, words.map((w) => h('li', {}, w)), other ? h('li', {}, 'Other validation checks failed (see the technical details).') : null),
  );
}

export function verdictView(report) {
  const v = VERDICTS[report.validation_state] ?? VERDICTS.Invalid;
  const m = report.manifest;
  const s = report.signer;
  const revoked = report.revocation?.status === 'revoked';
  const parts = [
    h(
      'div',
      { class: `verdict verdict--${revoked ? 'bad' : v.kind}`, role: 'status' },
      h('span', { class: 'verdict__icon', 'aria-hidden': 'true' }, revoked ? '✕' : v.icon),
      h('div', {}, h('p', { class: 'verdict__title' }, revoked && report.validation_state !== 'none' ? `${v.title}, but the signer is revoked` : v.title), h('p', { class: 'verdict__text' }, verdictText(report, v))),
    ),
  ];
  const from = sourceWords(report.manifest_source);
  if (from) parts.push(h('p', { class: 'muted manifest-source' }, from));
  if (report.validation_state === 'Invalid') {
    // The deciding failures wherever they sit (an ingredient's too), and the service's one-line reason.
    const codes = report.failures?.length ? report.failures.map((f) => f.code) : report.status?.failure;
    parts.push(failureList(codes, report.mime_type));
    if (report.summary) parts.push(h('p', { class: 'muted verdict-summary' }, report.summary));
  }
  if (m) {
    parts.push(
      h('h3', {}, 'Manifest'),
      definitionList([
        ['Title', m.title ?? '—'],
        ['Creator', m.creator ?? '—'],
        ['Signed at', signedAtWords(report)],
        ['Duration', durationWords(m.duration)],
        ['Actions', m.actions?.length ? m.actions.map((a) => ACTIONS[a] ?? a).join(', ') : undefined],
        ['Made with', m.claim_generator ?? undefined],
        ['Publisher', m.publisher ?? undefined],
        ['Copyright', copyrightWords(m)],
        ['AI training and data mining', trainingList(m.training_mining)],
        [
          'Ingredients',
          m.ingredients?.length
            ? h('ul', { class: 'plain' }, m.ingredients.map((i) => h('li', {}, `${i.title ?? 'Untitled'}${i.relationship === 'parentOf' ? ' (the earlier version)' : ''}${i.failure?.length ? ' — its own credentials did not validate' : ''}`)))
            : undefined,
        ],
      ]),
    );
  }
  if (report.identities?.length) {
    parts.push(h('h3', {}, 'People'), h('ul', { class: 'plain identities' }, report.identities.map((i) => h('li', {}, `${identityWords(i)}${i.email ? ` — ${i.email}` : ''}`))));
  }
  if (s || report.revocation || report.ocsp) {
    parts.push(
      h('h3', {}, 'Signer'),
      definitionList([
        ['Certificate', s?.subject ?? undefined],
        ['Issued by', s?.issuer ?? undefined],
        ['Serial number', s?.serial ? h('code', { class: 'hash' }, s.serial) : undefined],
        ['Revocation', revocationWords(report.revocation)],
        ['At signing', stapledOcspWords(report.ocsp)],
      ]),
    );
  }
  if (Object.hasOwn(report, 'anchor')) {
    const details = anchorDetails(report.anchor);
    parts.push(h('h3', {}, 'On-chain anchor'), details ?? h('p', {}, 'This service has not anchored a file with exactly these bytes.'));
  }
  const codes = report.status ?? {};
  parts.push(
    h(
      'details',
      { class: 'technical' },
      h('summary', {}, 'Technical details'),
      definitionList([
        ['File type', report.mime_type],
        ['SHA-256', report.sha256 ? h('code', { class: 'hash' }, report.sha256) : undefined],
        ['Manifest', report.active_manifest ? h('code', { class: 'hash' }, report.active_manifest) : undefined],
        ['Checks failed', codes.failure?.length ? codes.failure.join(', ') : 'none'],
        ['Checks passed', codes.success?.length ? String(codes.success.length) : undefined],
      ]),
    ),
  );
  return parts;
}
