/** DER <-> PEM (RFC 7468 strict form: 64-character base64 lines, LF line ends, trailing newline). */

export class PemError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PemError';
  }
}

export interface PemBlock {
  label: string;
  der: Uint8Array;
}

const LABEL = /^[A-Z0-9][A-Z0-9 ]*[A-Z0-9]$|^[A-Z0-9]$/;
const BLOCK = /-----BEGIN ([^-\r\n]+)-----([\s\S]*?)-----END ([^-\r\n]+)-----/g;

export function derToPem(der: Uint8Array, label = 'CERTIFICATE'): string {
  if (!LABEL.test(label)) throw new PemError(`invalid PEM label "${label}"`);
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function decodeBody(body: string, label: string): Uint8Array {
  const b64 = body.replace(/\s+/g, '');
  if (b64.length === 0 || b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) {
    throw new PemError(`PEM block "${label}" is not valid base64`);
  }
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

/** Every PEM block in `text`, in order. Text outside blocks (e.g. openssl's "subject=" lines) is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const [, begin, body, end] = m;
    if (begin !== end) throw new PemError(`PEM block BEGIN ${begin} closed by END ${end}`);
    out.push({ label: begin!, der: decodeBody(body!, begin!) });
  }
  return out;
}

/** DER of the first PEM block with the given label (default CERTIFICATE). */
export function pemToDer(pem: string, label = 'CERTIFICATE'): Uint8Array {
  const block = pemBlocks(pem).find((b) => b.label === label);
  if (!block) throw new PemError(`no "${label}" PEM block found`);
  return block.der;
}
