import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import type { Server } from 'node:http';
import { BasicOCSPResponse, OCSPResponse, OCSPResponseStatus, id_pkix_ocsp_basic } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { expect } from 'chai';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import type { OcspCertStatus } from '../../shared/pki/ocsp-response.js';
import type { VaultKey } from '../../shared/vault/types.js';
import { OcspResponder, type OcspResponderOptions } from '../../ocsp/responder.js';
import type { OcspIssuer } from '../../ocsp/source.js';
import { listenServer } from '../../ocsp/http-server.js';
import { createOcspServer, type OcspServerOptions } from '../../ocsp/server.js';
import type { OpensslChain } from '../support/openssl-chain.js';

export { OCSPResponseStatus };

/** A VaultKey that counts its signatures. */
export interface CountingKey extends VaultKey {
  readonly count: () => number;
}

export function countingKey(key: VaultKey, options: { fail?: () => Error | undefined; delayMs?: number } = {}): CountingKey {
  let n = 0;
  return {
    name: key.name,
    publicKeySpki: key.publicKeySpki,
    count: () => n,
    async signEs384(data) {
      n++;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const err = options.fail?.();
      if (err) throw err;
      return key.signEs384(data);
    },
  };
}

export interface TestIssuer extends OcspIssuer {
  name: string;
  key: CountingKey;
}

/**
 * A status source the test controls: a real Map from "<issuer name>/<serial>" to a status; anything absent
 * is good (the spec's rule for serials it does not know). Every lookup is recorded.
 */
export class StatusTable {
  readonly entries = new Map<string, OcspCertStatus>();
  readonly lookups: string[] = [];

  reset(): void {
    this.entries.clear();
    this.lookups.length = 0;
  }

  set(issuer: string, serialHex: string, status: OcspCertStatus): void {
    this.entries.set(`${issuer}/${normalizeSerialHex(serialHex)}`, status);
  }

  readonly lookup = async (issuer: TestIssuer, serialHex: string): Promise<OcspCertStatus> => {
    const key = `${issuer.name}/${serialHex}`;
    this.lookups.push(key);
    return this.entries.get(key) ?? { status: 'good' };
  };
}

export function issuersOf(chain: OpensslChain): { subCa: TestIssuer; root: TestIssuer } {
  return {
    subCa: { name: 'sub-ca', certificate: chain.der.subCa, key: countingKey(chain.keys.subCa) },
    root: { name: 'root', certificate: chain.der.root, key: countingKey(chain.keys.root) },
  };
}

export function serialOf(pem: string): string {
  return normalizeSerialHex(new X509Certificate(pem).serialNumber);
}

export interface RunningResponder {
  responder: OcspResponder<TestIssuer>;
  server: Server;
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startResponder(
  options: OcspResponderOptions<TestIssuer>,
  serverOptions: OcspServerOptions = {},
): Promise<RunningResponder> {
  const responder = new OcspResponder(options);
  const server = createOcspServer(responder, serverOptions);
  const { port } = await listenServer(server, 0, '127.0.0.1');
  return {
    responder,
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together (openssl prints "Response verify OK" on stderr). */
  all: string;
}

/** Runs openssl without throwing on a non-zero exit. */
export function openssl(args: string[], cwd: string): Promise<ExecResult> {
  return new Promise((resolve) => {
    execFile('openssl', args, { cwd, timeout: 20_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
      resolve({ code, stdout, stderr, all: `${stdout}\n${stderr}` });
    });
  });
}

/** Decodes an OCSPResponse with @peculiar/asn1-ocsp (an implementation independent of ours). */
export function parseOcspResponse(der: Uint8Array): { status: OCSPResponseStatus; basic?: BasicOCSPResponse } {
  const response = AsnConvert.parse(der, OCSPResponse);
  if (!response.responseBytes) return { status: response.responseStatus };
  expect(response.responseBytes.responseType).to.equal(id_pkix_ocsp_basic);
  return { status: response.responseStatus, basic: AsnConvert.parse(response.responseBytes.response, BasicOCSPResponse) };
}

/** The OCSPResponseStatus of a DER response. */
export function responseStatusOf(der: Uint8Array): OCSPResponseStatus {
  return parseOcspResponse(der).status;
}
