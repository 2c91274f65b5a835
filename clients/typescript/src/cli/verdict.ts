import type { Verification } from '../index.js';

const TRUST_SOURCES: Record<string, string> = {
  c2pa_trust_list: 'the C2PA Trust List',
  interim_trust_list: 'the interim C2PA trust list',
  service_ca: "the service's own certificate authority",
  operator_anchor: "the operator's trust anchors",
  operator_allowed: "the operator's list of trusted signing certificates",
  organisation_anchor: "your organisation's trust anchors",
};

/** The service's verdict on a file, in words: what it means first, then who signed, when, and what failed. */
export function verdictInWords(v: Verification): string {
  const lines: string[] = [];
  switch (v.validation_state) {
    case 'Trusted':
      lines.push(`Trusted: the Content Credentials are intact and the signer is trusted${v.signer?.trust_source ? ` (through ${TRUST_SOURCES[v.signer.trust_source] ?? v.signer.trust_source})` : ''}.`);
      break;
    case 'Valid':
      lines.push('Valid but not trusted: the Content Credentials are intact, but the signer does not chain to a trust anchor the service uses.');
      break;
    case 'Invalid':
      lines.push('Invalid: the file was changed after it was signed, or its Content Credentials are broken.');
      break;
    default:
      lines.push('No Content Credentials: the file carries no C2PA manifest.');
  }
  const m = v.manifest;
  if (m?.title || m?.creator) lines.push(`Title: ${m.title ?? '-'}; creator: ${m.creator ?? '-'}`);
  if (v.signer?.subject) lines.push(`Signed by: ${v.signer.subject}${v.signer.issuer ? `, certificate issued by ${v.signer.issuer}` : ''}`);
  if (v.timestamp?.time) lines.push(`Signed at: ${v.timestamp.time} (timestamp ${v.timestamp.trusted ? 'trusted' : v.timestamp.validated ? 'valid, not trusted' : 'not valid'})`);
  const revocation = v.revocation?.status;
  if (revocation === 'revoked') lines.push(`The signing certificate was revoked${v.revocation.revoked_at ? ` at ${v.revocation.revoked_at}` : ''}${v.revocation.reason ? ` (${v.revocation.reason})` : ''}.`);
  else if (revocation === 'good') lines.push('The signing certificate is not revoked.');
  const failures = v.status?.failure ?? [];
  if (failures.length > 0) lines.push(`Failures: ${failures.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
