/**
 * Checkpoints as C2SP signed notes (c2sp.org/tlog-checkpoint, c2sp.org/signed-note):
 *
 *   <origin>\n<tree size, decimal>\n<root hash, base64>\n
 *   \n
 *   — <origin> <base64(key ID || signature)>\n
 *
 * The vault's keys are ECDSA P-384 (Key Vault has no Ed25519), so the signature line uses signed-note's ECDSA layout
 * (signature type 0x02, as Rekor and CT logs use): key ID = the first 4 bytes of SHA-256 of the key's DER
 * SubjectPublicKeyInfo, signature = ASN.1 DER ECDSA over the note text (body, final newline included), here with
 * P-384 and SHA-384 (the vault's ES384). A verifier needs the SPKI (GET /v1/audit/checkpoint serves it as
 * public_key) and node:crypto, OpenSSL or any ECDSA library.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { ecdsaRawToDer } from '../pki/ecdsa-signature.js';

export interface Checkpoint {
  origin: string;
  treeSize: number;
  root: Buffer;
}

const SIGNATURE_LINE = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/;

export function checkpointBody(c: Checkpoint): string {
  if (!c.origin || /[\s]/.test(c.origin)) throw new Error('a checkpoint origin is one line without spaces');
  return `${c.origin}\n${c.treeSize}\n${c.root.toString('base64')}\n`;
}

export function noteKeyId(spki: Uint8Array): Buffer {
  return createHash('sha256').update(spki).digest().subarray(0, 4);
}

/** Signs the checkpoint with `sign` (ES384 raw r||s, the vault's form) and answers the signed note. */
export async function signCheckpoint(c: Checkpoint, key: { publicKeySpki: Uint8Array; signEs384(data: Uint8Array): Promise<Uint8Array> }): Promise<string> {
  const body = checkpointBody(c);
  const der = ecdsaRawToDer(await key.signEs384(Buffer.from(body, 'utf8')));
  const sig = Buffer.concat([noteKeyId(key.publicKeySpki), Buffer.from(der)]).toString('base64');
  return `${body}\n\u2014 ${c.origin} ${sig}\n`;
}

export class CheckpointNoteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointNoteError';
  }
}

/** Opens a signed checkpoint: checks the signature line of `origin`'s key and answers what it signs; throws otherwise. */
export function openCheckpoint(note: string, spki: Uint8Array, origin: string): Checkpoint {
  const at = note.lastIndexOf('\n\n');
  if (at < 0) throw new CheckpointNoteError('the note has no signature block');
  const body = note.slice(0, at + 1);
  const lines = body.split('\n');
  if (lines.length < 4 || lines[0] !== origin) throw new CheckpointNoteError(`the note is not a checkpoint of ${origin}`);
  const treeSize = Number(lines[1]);
  const root = Buffer.from(lines[2]!, 'base64');
  if (!/^\d+$/.test(lines[1]!) || !Number.isSafeInteger(treeSize) || root.length !== 32) throw new CheckpointNoteError('the checkpoint body is malformed');
  const keyId = noteKeyId(spki);
  const publicKey = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  for (const line of note.slice(at + 2).split('\n')) {
    const m = SIGNATURE_LINE.exec(line);
    if (!m || m[1] !== origin) continue;
    const raw = Buffer.from(m[2]!, 'base64');
    if (!raw.subarray(0, 4).equals(keyId)) continue;
    if (!verify('sha384', Buffer.from(body, 'utf8'), publicKey, raw.subarray(4))) throw new CheckpointNoteError('the checkpoint signature does not verify');
    return { origin, treeSize, root };
  }
  throw new CheckpointNoteError("the note carries no signature by the log's key");
}
