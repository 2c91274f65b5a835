// Results of verification: the embedded verdict (verdict-view.js) or, for a file without credentials, the ones
// recovered by its fingerprint, each clearly marked as not bound to the file and shown beside the signed image they
// belong to. Used by the app's Verify page and the public one.
import { formatDate, h, uid } from './dom.js';
import { anchorInfo, chainLabel, definitionList } from './jobs.js';
import { revocationWords, verdictView } from './verdict-view.js';

const RECOVERED_LABEL = 'Recovered by fingerprint — not bound to this file';

/** The organisation a certificate names (O=, else CN=), for "signed by". */
function organisationOf(subject) {
  if (!subject) return undefined;
  const parts = String(subject).split(/,\s*(?=[A-Za-z][A-Za-z0-9.]*=)/);
  const value = (key) => parts.find((p) => p.toUpperCase().startsWith(`${key}=`))?.slice(key.length + 1).trim();
  return value('O') || value('CN') || String(subject);
}

/** A path on this origin for a URL the API built from its BASE_URL (which may name another address). */
function thumbnailPath(url) {
  return /\/v1\/manifests\/[^/?#]+\/thumbnail$/.exec(String(url ?? ''))?.[0];
}
function manifestPath(url) {
  return /\/v1\/manifests\/[^/?#]+$/.exec(String(url ?? ''))?.[0];
}

/** The API judges a recovered manifest's signature on its own (its hard binding needs the original bytes). */
const SIGNATURE_WORDS = {
  trusted: 'Intact, made with a certificate this service trusts.',
  valid: 'Intact, but the signer does not chain to this service’s root certificate.',
  invalid: 'Broken: the recovered manifest does not validate.',
};

function signatureWords(c) {
  return SIGNATURE_WORDS[c.signature] ?? 'Cannot be confirmed.';
}

function similarityWords(c) {
  const d = Number(c.distance);
  const score = Number(c.similarity_score);
  if (!Number.isFinite(d)) return undefined;
  const bits = `${d} of 64 fingerprint bits differ`;
  if (d === 0) return `Same picture as far as the fingerprint can tell (${bits})`;
  return `${Number.isFinite(score) ? `${score}% similar` : 'Similar'} (${bits})`;
}

function anchorWords(anchor) {
  const a = anchorInfo(anchor);
  if (!a) return 'Not anchored on a blockchain.';
  const links = [
    a.link ? h('a', { href: a.link, target: '_blank', rel: 'noopener noreferrer', class: 'external' }, 'View the transaction') : null,
    a.proofPath && a.done ? h('a', { href: a.proofPath, target: '_blank', rel: 'noopener', class: 'external' }, 'Anchor proof (JSON)') : null,
  ].filter(Boolean);
  let text;
  if (a.done) text = `Anchored on ${chainLabel(a)}${a.block !== undefined ? `, block ${a.block}` : ''}${a.at ? `, ${formatDate(a.at)}` : ''}.`;
  else if (a.failed) text = 'Anchoring failed.';
  else if (a.status === 'anchoring') text = 'Transaction sent, waiting for confirmation.';
  else text = 'Waiting for the next batch to be anchored.';
  return links.length ? [text, ' ', h('span', { class: 'links links--inline' }, links)] : text;
}

/** One picture of the comparison, or words where it cannot be shown. */
function compareItem(caption, src, alt, missing) {
  const frame = h('div', { class: 'compare__frame' });
  const showMissing = (text) => frame.replaceChildren(h('p', { class: 'compare__missing' }, text));
  if (src) {
    const img = h('img', { src, alt, decoding: 'async' });
    img.addEventListener('error', () => showMissing(missing.failed));
    frame.append(img);
  } else {
    showMissing(missing.absent);
  }
  return h('figure', { class: 'compare__item' }, frame, h('figcaption', {}, caption));
}

/** A recovered candidate: the label, the two pictures side by side, what its manifest says. */
function candidateView(c, index, previewUrl) {
  const m = c.manifest ?? {};
  const titleId = uid('candidate');
  const thumb = thumbnailPath(c.thumbnail_url);
  const manifestLink = manifestPath(c.manifest_url);
  return h(
    'li',
    { class: 'candidate' },
    h(
      'article',
      { 'aria-labelledby': titleId },
      h('p', { class: 'recovered-tag' }, h('span', { 'aria-hidden': 'true' }, '≈'), RECOVERED_LABEL),
      h('h3', { id: titleId, class: 'candidate__title' }, m.title || `Signed image ${index + 1}`),
      h(
        'div',
        { class: 'compare' },
        compareItem('Your image', previewUrl, 'The image you checked', {
          absent: 'Not kept: only its hash and this result are stored.',
          failed: 'This browser cannot show the file.',
        }),
        compareItem('The signed image', thumb, `The signed image these credentials belong to${m.title ? `: ${m.title}` : ''}`, {
          absent: 'No picture of the signed image is available.',
          failed: 'The picture of the signed image could not be loaded.',
        }),
      ),
      definitionList([
        ['Title', m.title || '—'],
        ['Creator', m.creator || '—'],
        ['Signed by', organisationOf(c.signer?.subject) ?? 'Unknown'],
        ['Signed at', m.signed_at ? formatDate(m.signed_at) : 'Not timestamped'],
        ['On-chain anchor', anchorWords(c.anchor)],
        ['Match', similarityWords(c)],
        ['Signature', signatureWords(c)],
        ['Revocation', c.revocation ? revocationWords(c.revocation) : undefined],
      ]),
      h(
        'details',
        { class: 'technical' },
        h('summary', {}, 'Technical details of the recovered manifest'),
        definitionList([
          ['Manifest', c.manifest_id ? h('code', { class: 'hash' }, c.manifest_id) : undefined],
          ['Signed file’s SHA-256', c.signed_sha256 ? h('code', { class: 'hash' }, c.signed_sha256) : undefined],
          ['Fingerprint', c.fingerprint ? h('code', { class: 'hash' }, `${c.fingerprint}${c.alg ? ` (${c.alg})` : ''}`) : undefined],
          ['Certificate', c.signer?.subject ?? undefined],
          ['Issued by', c.signer?.issuer ?? undefined],
          ['Manifest store', manifestLink ? h('a', { href: manifestLink }, 'Download the C2PA manifest store') : undefined],
        ]),
      ),
    ),
  );
}

function neutralVerdict(title, ...text) {
  return h(
    'div',
    { class: 'verdict verdict--neutral' },
    h('span', { class: 'verdict__icon', 'aria-hidden': 'true' }, '?'),
    h('div', {}, h('p', { class: 'verdict__title' }, title), ...text.map((t) => h('p', { class: 'verdict__text' }, t))),
  );
}

function noneTechnical(report, recovered) {
  return h(
    'details',
    { class: 'technical' },
    h('summary', {}, recovered ? 'Technical details of your file' : 'Technical details'),
    definitionList([
      ['File type', report.mime_type],
      ['SHA-256', report.sha256 ? h('code', { class: 'hash' }, report.sha256) : undefined],
      ['Fingerprint', report.fingerprint ? h('code', { class: 'hash' }, report.fingerprint) : undefined],
    ]),
  );
}

/** What a result says, for the live region. */
export function summaryOf(report) {
  const recovered = Array.isArray(report.recovered) ? report.recovered : [];
  if (report.validation_state !== 'none') {
    const words = { Trusted: 'Trusted', Valid: 'Not trusted', Invalid: 'Invalid' }[report.validation_state] ?? 'Invalid';
    return report.revocation?.status === 'revoked' ? `${words}, but the signer is revoked.` : `${words}.`;
  }
  if (!recovered.length) return 'No Content Credentials found.';
  return `No Content Credentials in this file. ${recovered.length === 1 ? 'One signed image' : `${recovered.length} signed images`} recovered by fingerprint, not bound to this file.`;
}

/**
 * The result's body: the embedded verdict, the recovered candidates, or "none found". `previewUrl`: a blob: URL of
 * the checked file for the side-by-side comparison (null when it is not at hand, as for a permalink).
 */
export function resultBody(report, previewUrl) {
  if (report.validation_state !== 'none') return verdictView(report);
  const recovered = Array.isArray(report.recovered) ? report.recovered : [];
  if (!recovered.length) {
    return [
      neutralVerdict(
        'No Content Credentials found',
        'This file carries no C2PA manifest, and no image signed with this service and open to lookup looks like it. Nothing can be said about where it came from.',
      ),
      noneTechnical(report, false),
    ];
  }
  const one = recovered.length === 1;
  return [
    neutralVerdict(
      'No Content Credentials in this file',
      `But it looks like ${one ? 'an image' : `${recovered.length} images`} signed with this service. ${one ? 'Its credentials are' : 'Their credentials are'} shown below: they belong to the signed image${one ? '' : 's'}, not to this file, which may be a re-encoded, resized or edited copy, or just a similar picture. Compare the pictures.`,
    ),
    h('h3', {}, recovered.length === 1 ? 'Recovered credentials' : `Recovered credentials (${recovered.length}, nearest first)`),
    h(
      'ol',
      { class: 'candidates' },
      recovered.map((c, i) => candidateView(c, i, previewUrl)),
    ),
    noneTechnical(report, true),
  ];
}
