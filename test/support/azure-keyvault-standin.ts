/**
 * A local stand-in for Azure Key Vault (keys API only), good enough for the real `@azure/keyvault-keys` SDK.
 *
 * - HTTPS only, with a certificate made in-process (a throwaway P-256 CA plus a server certificate). Clients trust the
 *   CA through their own options (`clientOptions()`); nothing is trusted or disabled process-wide.
 * - The vault is addressed as `https://<name>.vault.azure.net:<port>`, so the SDK's challenge resource check
 *   (the request host must end in `.vault.azure.net`) runs exactly as in production. `clientOptions()` gives
 *   the SDK an https.Agent whose DNS lookup sends that one host name to 127.0.0.1.
 * - Every request without the expected bearer token gets Azure's 401 challenge:
 *   `WWW-Authenticate: Bearer authorization="https://login.microsoftonline.com/<tenant>", resource="https://vault.azure.net"`.
 *   The SDK turns that into a token request for scope `https://vault.azure.net/.default` with `tenantId: <tenant>`.
 * - Operations: POST /keys/{name}/create, GET /keys/{name}[/{version}], POST /keys/{name}/{version}/sign and
 *   /verify. EC P-384 only. Errors use Azure's `{"error":{"code","message"}}` shape (KeyNotFound for 404).
 * - Keys live in memory and survive `stop()`/`start()` (same port), like a vault that went away and came back.
 * - `counts` and `requests` record what the SDK sent, to prove challenges, caching and retries.
 */
import { createECDH, createHash, generateKeyPairSync, randomBytes, randomUUID, sign as cryptoSign, type KeyObject } from 'node:crypto';
import dns from 'node:dns';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import * as asn1X509 from '@peculiar/asn1-x509';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/core-auth';
import type { KeyClientOptions } from '@azure/keyvault-keys';

// ---------------------------------------------------------------------------------------------------------------
// P-384 ECDSA over a caller-supplied digest. Node's crypto.sign always hashes (for EC with a null algorithm it
// silently uses SHA-256), but Key Vault signs a digest the client computed. So: k*G natively through ECDH, the rest
// in BigInt. Verification (u1*G + u2*Q) is plain Jacobian arithmetic; slow-ish (milliseconds), fine for tests.

const P384 = {
  p: BigInt('0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff'),
  n: BigInt('0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973'),
  gx: BigInt('0xaa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7'),
  gy: BigInt('0x3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f'),
  bytes: 48,
};

const toBig = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`));
const toBytes = (v: bigint, len: number): Buffer => Buffer.from(v.toString(16).padStart(len * 2, '0'), 'hex');
const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;

function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  let b = mod(base, m);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return result;
}
/** Inverse modulo a prime. */
const inv = (a: bigint, m: bigint): bigint => modPow(a, m - 2n, m);

type Jacobian = [bigint, bigint, bigint]; // Z = 0 is the point at infinity

function jDouble([x1, y1, z1]: Jacobian): Jacobian {
  const p = P384.p;
  if (z1 === 0n || y1 === 0n) return [0n, 1n, 0n];
  const delta = (z1 * z1) % p;
  const gamma = (y1 * y1) % p;
  const beta = (x1 * gamma) % p;
  const alpha = mod(3n * (x1 - delta) * (x1 + delta), p); // a = -3
  const x3 = mod(alpha * alpha - 8n * beta, p);
  const z3 = mod((y1 + z1) ** 2n - gamma - delta, p);
  const y3 = mod(alpha * (4n * beta - x3) - 8n * gamma * gamma, p);
  return [x3, y3, z3];
}

function jAdd(a: Jacobian, b: Jacobian): Jacobian {
  const p = P384.p;
  if (a[2] === 0n) return b;
  if (b[2] === 0n) return a;
  const [x1, y1, z1] = a;
  const [x2, y2, z2] = b;
  const z1z1 = (z1 * z1) % p;
  const z2z2 = (z2 * z2) % p;
  const u1 = (x1 * z2z2) % p;
  const u2 = (x2 * z1z1) % p;
  const s1 = (y1 * z2 * z2z2) % p;
  const s2 = (y2 * z1 * z1z1) % p;
  const h = mod(u2 - u1, p);
  const r = mod(2n * (s2 - s1), p);
  if (h === 0n) return r === 0n ? jDouble(a) : [0n, 1n, 0n];
  const i = (4n * h * h) % p;
  const j = (h * i) % p;
  const v = (u1 * i) % p;
  const x3 = mod(r * r - j - 2n * v, p);
  const y3 = mod(r * (v - x3) - 2n * s1 * j, p);
  const z3 = mod(((z1 + z2) ** 2n - z1z1 - z2z2) * h, p);
  return [x3, y3, z3];
}

function jMul(k: bigint, point: Jacobian): Jacobian {
  let result: Jacobian = [0n, 1n, 0n];
  for (let i = BigInt(k.toString(2).length - 1); i >= 0n; i--) {
    result = jDouble(result);
    if ((k >> i) & 1n) result = jAdd(result, point);
  }
  return result;
}

function affineX([x, , z]: Jacobian): bigint {
  const zi = inv(z, P384.p);
  return (x * zi * zi) % P384.p;
}

/** ECDSA signature (raw r||s) of a 48-byte digest with private scalar d. */
export function signP384Digest(d: bigint, digest: Uint8Array): Buffer {
  const { n, bytes } = P384;
  const e = toBig(digest);
  for (;;) {
    const k = toBig(randomBytes(bytes));
    if (k === 0n || k >= n) continue;
    const ecdh = createECDH('secp384r1');
    ecdh.setPrivateKey(toBytes(k, bytes));
    const r = toBig(ecdh.getPublicKey().subarray(1, 1 + bytes)) % n;
    if (r === 0n) continue;
    const s = mod(inv(k, n) * (e + r * d), n);
    if (s === 0n) continue;
    return Buffer.concat([toBytes(r, bytes), toBytes(s, bytes)]);
  }
}

/** Verifies a raw r||s signature over a 48-byte digest with public point (x, y). */
export function verifyP384Digest(x: bigint, y: bigint, digest: Uint8Array, signature: Uint8Array): boolean {
  const { n, bytes } = P384;
  if (signature.length !== 2 * bytes) return false;
  const r = toBig(signature.subarray(0, bytes));
  const s = toBig(signature.subarray(bytes));
  if (r <= 0n || r >= n || s <= 0n || s >= n) return false;
  const w = inv(s, n);
  const u1 = (toBig(digest) * w) % n;
  const u2 = (r * w) % n;
  const point = jAdd(jMul(u1, [P384.gx, P384.gy, 1n]), jMul(u2, [x, y, 1n]));
  if (point[2] === 0n) return false;
  return affineX(point) % n === r;
}

// ---------------------------------------------------------------------------------------------------------------
// TLS material: a throwaway CA and a server certificate for the vault host name. Built with @peculiar/asn1-x509
// and signed with node:crypto (@peculiar/x509 would need a reflect-metadata polyfill this project does not install).

interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const ID_AT_COMMON_NAME = '2.5.4.3';

function dn(commonName: string): asn1X509.Name {
  return new asn1X509.Name([
    new asn1X509.RelativeDistinguishedName([
      new asn1X509.AttributeTypeAndValue({ type: ID_AT_COMMON_NAME, value: new asn1X509.AttributeValue({ utf8String: commonName }) }),
    ]),
  ]);
}

function extension(extnID: string, critical: boolean, value: unknown): asn1X509.Extension {
  return new asn1X509.Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function issue(params: {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  extensions: asn1X509.Extension[];
}): string {
  const serial = randomBytes(12);
  serial[0]! &= 0x7f; // positive
  serial[0]! |= 0x01; // and without a leading zero byte
  const tbs = new asn1X509.TBSCertificate({
    version: asn1X509.Version.v3,
    serialNumber: new Uint8Array(serial).buffer,
    signature: new asn1X509.AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    issuer: dn(params.issuer),
    validity: new asn1X509.Validity({ notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 24 * 3600_000) }),
    subject: dn(params.subject),
    subjectPublicKeyInfo: AsnConvert.parse(
      params.publicKey.export({ type: 'spki', format: 'der' }),
      asn1X509.SubjectPublicKeyInfo,
    ),
    extensions: new asn1X509.Extensions(params.extensions),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const signature = cryptoSign('sha256', tbsDer, params.signingKey); // DER ECDSA-Sig-Value, as X.509 wants
  const cert = new asn1X509.Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: new asn1X509.AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    signatureValue: new Uint8Array(signature).buffer,
  });
  const der = Buffer.from(AsnConvert.serialize(cert));
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

function makeTls(hostname: string): TlsMaterial {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caName = 'Azure Key Vault stand-in test CA';
  const caPem = issue({
    subject: caName,
    issuer: caName,
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      extension(asn1X509.id_ce_basicConstraints, true, new asn1X509.BasicConstraints({ cA: true, pathLenConstraint: 0 })),
      extension(asn1X509.id_ce_keyUsage, true, new asn1X509.KeyUsage(asn1X509.KeyUsageFlags.keyCertSign | asn1X509.KeyUsageFlags.cRLSign)),
    ],
  });
  const certPem = issue({
    subject: hostname,
    issuer: caName,
    publicKey: server.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      extension(asn1X509.id_ce_basicConstraints, true, new asn1X509.BasicConstraints({ cA: false })),
      extension(asn1X509.id_ce_keyUsage, true, new asn1X509.KeyUsage(asn1X509.KeyUsageFlags.digitalSignature)),
      extension(asn1X509.id_ce_extKeyUsage, false, new asn1X509.ExtendedKeyUsage([asn1X509.id_kp_serverAuth])),
      extension(
        asn1X509.id_ce_subjectAltName,
        false,
        new asn1X509.SubjectAlternativeName([
          new asn1X509.GeneralName({ dNSName: hostname }),
          new asn1X509.GeneralName({ dNSName: 'localhost' }),
          new asn1X509.GeneralName({ iPAddress: '127.0.0.1' }),
        ]),
      ),
    ],
  });
  const keyPem = server.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { caPem, certPem, keyPem };
}

// ---------------------------------------------------------------------------------------------------------------
// Stub credential

export interface TokenRequest {
  scopes: string[];
  tenantId: string | undefined;
  enableCae: boolean | undefined;
  claims: string | undefined;
}

/** A TokenCredential that hands out a fixed token and records what it was asked for. */
export class StubTokenCredential implements TokenCredential {
  readonly requests: TokenRequest[] = [];
  /** When set, getToken throws it (as a real credential does when it has no identity to use). */
  failWith: Error | undefined;

  constructor(readonly token: string = `stub-${randomUUID()}`) {}

  async getToken(scopes: string | string[], options: GetTokenOptions = {}): Promise<AccessToken> {
    this.requests.push({
      scopes: Array.isArray(scopes) ? [...scopes] : [scopes],
      tenantId: options.tenantId,
      enableCae: options.enableCae,
      claims: options.claims,
    });
    if (this.failWith) throw this.failWith;
    return { token: this.token, expiresOnTimestamp: Date.now() + 3600_000, tokenType: 'Bearer' };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The server

export type StandinOperation = 'challenge' | 'create' | 'get' | 'sign' | 'verify' | 'other';

export interface RecordedRequest {
  method: string;
  path: string;
  apiVersion: string | null;
  operation: StandinOperation;
  status: number;
  authorized: boolean;
  /** Refused for a scoped credential (403 ForbiddenByRbac). */
  forbidden?: boolean;
}

interface KeyVersion {
  version: string;
  d: bigint;
  x: Buffer;
  y: Buffer;
  publicKey: KeyObject;
  keyOps: string[];
  kty: string;
  created: number;
  tags: Record<string, string> | undefined;
}

export interface AzureKeyVaultStandinOptions {
  /** Vault host name; must end in `.vault.azure.net` for the SDK's default challenge check. */
  hostname?: string;
  /** 0 (default) picks a free port; it is then kept for restarts. */
  port?: number;
  tenantId?: string;
  /** The `resource` parameter of the challenge. */
  resource?: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const KEY_NAME = /^[0-9A-Za-z-]{1,127}$/;

/** What a scoped credential may do per key (scopedCredential). */
export interface KeyScope {
  maySign(keyName: string): boolean;
  mayCreate(keyName: string): boolean;
}
const b64url = (b: Uint8Array): string => Buffer.from(b).toString('base64url');

export class AzureKeyVaultStandin {
  readonly hostname: string;
  readonly tenantId: string;
  readonly resource: string;
  /** The one token this vault accepts; `credential()` hands it out. */
  readonly acceptedToken = `standin-${randomUUID()}`;
  readonly counts: Record<StandinOperation, number> = { challenge: 0, create: 0, get: 0, sign: 0, verify: 0, other: 0 };
  readonly requests: RecordedRequest[] = [];
  /** When true the server accepts connections and requests but never answers (a blackholed vault). */
  unresponsive = false;
  /** Tokens of scoped credentials (scopedCredential) and what each may do. */
  private readonly scopes = new Map<string, KeyScope>();

  private port: number;
  private server: https.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly keys = new Map<string, KeyVersion[]>();
  private failures: { remaining: number; status: number } = { remaining: 0, status: 503 };
  private agent: https.Agent | undefined;

  private constructor(
    private readonly tls: TlsMaterial,
    options: AzureKeyVaultStandinOptions,
  ) {
    this.hostname = (options.hostname ?? 'standin.vault.azure.net').toLowerCase();
    this.tenantId = options.tenantId ?? randomUUID();
    this.resource = options.resource ?? 'https://vault.azure.net';
    this.port = options.port ?? 0;
  }

  /** Creates the stand-in and starts listening on 127.0.0.1. */
  static async create(options: AzureKeyVaultStandinOptions = {}): Promise<AzureKeyVaultStandin> {
    const hostname = (options.hostname ?? 'standin.vault.azure.net').toLowerCase();
    const standin = new AzureKeyVaultStandin(makeTls(hostname), options);
    await standin.start();
    return standin;
  }

  /** PEM of the CA that issued the server certificate. */
  get caCertificatePem(): string {
    return this.tls.caPem;
  }

  get vaultUrl(): string {
    return `https://${this.hostname}:${this.port}`;
  }

  get running(): boolean {
    return this.server?.listening ?? false;
  }

  /** A credential whose token this vault accepts. */
  credential(): StubTokenCredential {
    return new StubTokenCredential(this.acceptedToken);
  }

  /**
   * A credential limited as Azure RBAC role assignments at key scope limit an identity: it may read every key's
   * public part (Key Vault Reader), but sign and create only where `scope` allows (Key Vault Crypto User on those
   * keys); anything else is Azure's 403 ForbiddenByRbac.
   */
  scopedCredential(scope: KeyScope): StubTokenCredential {
    const token = `standin-scoped-${randomUUID()}`;
    this.scopes.set(token, scope);
    return new StubTokenCredential(token);
  }

  /**
   * SDK client options that trust the stand-in's CA and resolve its host name to 127.0.0.1, both only for the
   * clients they are given to. Retries are left to the caller.
   */
  clientOptions(): KeyClientOptions {
    this.agent ??= new https.Agent({ ca: this.tls.caPem, keepAlive: true, lookup: this.lookup });
    return { agent: this.agent };
  }

  /** DNS lookup that answers 127.0.0.1 for the vault's host name and asks the system for anything else. */
  readonly lookup: LookupFunction = (host, options, callback) => {
    if (host.toLowerCase() !== this.hostname) {
      dns.lookup(host, options, callback);
    } else if (options.all) {
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    } else {
      callback(null, '127.0.0.1', 4);
    }
  };

  async start(): Promise<void> {
    if (this.running) return;
    const server = https.createServer({ cert: this.tls.certPem, key: this.tls.keyPem }, (req, res) => {
      void this.handle(req, res);
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and cuts every open connection (keep-alive ones too). Keys are kept for `start()`. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }

  /** Stops the server and releases the client agent. */
  async close(): Promise<void> {
    await this.stop();
    this.agent?.destroy();
    this.agent = undefined;
  }

  /** The next `count` authorized requests answer `status` (default 503) with an Azure error body. */
  failNext(count: number, status = 503): void {
    this.failures = { remaining: count, status };
  }

  resetCounts(): void {
    for (const op of Object.keys(this.counts) as StandinOperation[]) this.counts[op] = 0;
    this.requests.length = 0;
  }

  /** Removes a key and all its versions (as a delete plus purge would). */
  deleteKey(name: string): void {
    this.keys.delete(name);
  }

  /** Versions of a key, oldest first (empty when the key does not exist). */
  keyVersions(name: string): string[] {
    return (this.keys.get(name) ?? []).map((k) => k.version);
  }

  /** Public key (SPKI DER) of the latest version, taken from the vault's own key object; for assertions. */
  publicKeySpki(name: string): Buffer | undefined {
    const latest = this.keys.get(name)?.at(-1);
    return latest ? Buffer.from(latest.publicKey.export({ type: 'spki', format: 'der' })) : undefined;
  }

  // -------------------------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `https://${this.hostname}`);
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      apiVersion: url.searchParams.get('api-version'),
      operation: 'other',
      status: 0,
      authorized: false,
    };
    this.requests.push(record);
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    if (this.unresponsive) return; // hold the request until the client gives up or the server stops

    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      const text = JSON.stringify(payload);
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'x-ms-keyvault-service-version': 'standin',
        ...headers,
      });
      res.end(text);
    };

    const auth = req.headers.authorization ?? '';
    const scope = this.scopes.get(auth.replace(/^Bearer /, ''));
    if (auth !== `Bearer ${this.acceptedToken}` && !scope) {
      record.operation = 'challenge';
      this.counts.challenge++;
      const message = auth
        ? 'AKV10032: Invalid issuer or token not accepted by this vault.'
        : 'AKV10000: Request is missing a Bearer or PoP token.';
      send(
        401,
        { error: { code: 'Unauthorized', message } },
        {
          'www-authenticate': `Bearer authorization="https://login.microsoftonline.com/${this.tenantId}", resource="${this.resource}"`,
        },
      );
      return;
    }
    record.authorized = true;

    try {
      let route: ReturnType<AzureKeyVaultStandin['route']>;
      try {
        route = this.route(req.method ?? 'GET', url.pathname);
      } catch (err) {
        this.counts.other++;
        throw err;
      }
      record.operation = route.operation;
      this.counts[route.operation]++;
      if (scope) {
        const keyName = decodeURIComponent(url.pathname.split('/')[2] ?? '');
        const allowed = route.operation === 'sign' ? scope.maySign(keyName) : route.operation === 'create' ? scope.mayCreate(keyName) : true;
        if (!allowed) {
          record.forbidden = true;
          throw new HttpError(403, 'Forbidden', `Caller is not authorized to perform action on resource. Action: 'Microsoft.KeyVault/vaults/keys/${route.operation === 'sign' ? 'sign/action' : 'create/action'}' Resource: '/keys/${keyName}' (ForbiddenByRbac)`);
        }
      }
      if (!record.apiVersion) throw new HttpError(400, 'BadParameter', 'The api-version query parameter is missing.');
      if (this.failures.remaining > 0) {
        this.failures.remaining--;
        throw new HttpError(this.failures.status, 'ServiceUnavailable', 'The stand-in was told to fail this request.');
      }
      const json = route.operation === 'get' ? {} : parseJson(body);
      send(200, route.run(json));
    } catch (err) {
      if (err instanceof HttpError) {
        send(err.status, { error: { code: err.code, message: err.message } });
      } else {
        send(500, { error: { code: 'InternalError', message: String(err) } });
      }
    }
  }

  private route(method: string, pathname: string): { operation: StandinOperation; run: (body: Record<string, unknown>) => unknown } {
    // /keys/{name}[/...]; an empty version segment (the SDK's GET /keys/{name}/) means "latest".
    const parts = pathname.split('/').slice(1).map(decodeURIComponent);
    if (parts[0] !== 'keys' || parts.length < 2 || parts.length > 4) {
      throw new HttpError(501, 'NotImplemented', `The stand-in does not implement ${method} ${pathname}.`);
    }
    const name = parts[1]!;
    if (!KEY_NAME.test(name)) throw new HttpError(400, 'BadParameter', `Invalid key name "${name}".`);
    const second = parts[2] ?? '';
    const third = parts[3];
    if (method === 'POST' && second === 'create' && third === undefined) {
      return { operation: 'create', run: (body) => this.createKey(name, body) };
    }
    if (method === 'GET' && third === undefined) {
      return { operation: 'get', run: () => this.bundle(name, this.find(name, second)) };
    }
    if (method === 'POST' && third === 'sign') {
      return { operation: 'sign', run: (body) => this.sign(name, this.find(name, second), body) };
    }
    if (method === 'POST' && third === 'verify') {
      return { operation: 'verify', run: (body) => this.verify(this.find(name, second), body) };
    }
    throw new HttpError(501, 'NotImplemented', `The stand-in does not implement ${method} ${pathname}.`);
  }

  private find(name: string, version: string): KeyVersion {
    const versions = this.keys.get(name);
    const key = version === '' ? versions?.at(-1) : versions?.find((k) => k.version === version);
    if (!key) {
      const id = version === '' ? name : `${name}/${version}`;
      throw new HttpError(
        404,
        'KeyNotFound',
        `A key with (name/id) ${id} was not found in this key vault. If you recently deleted this key you may be able to recover it using the correct recovery command. For help resolving this issue, please see https://go.microsoft.com/fwlink/?linkid=2125182`,
      );
    }
    return key;
  }

  private createKey(name: string, body: Record<string, unknown>): unknown {
    const kty = body.kty;
    if (kty !== 'EC' && kty !== 'EC-HSM') {
      throw new HttpError(400, 'BadParameter', `The stand-in only creates EC keys, not ${String(kty)}.`);
    }
    const crv = body.crv ?? 'P-256';
    if (crv !== 'P-384') throw new HttpError(400, 'BadParameter', `The stand-in only supports curve P-384, not ${String(crv)}.`);
    const keyOps = Array.isArray(body.key_ops) ? body.key_ops.map(String) : ['sign', 'verify'];
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const jwk = privateKey.export({ format: 'jwk' });
    const key: KeyVersion = {
      version: randomBytes(16).toString('hex'),
      d: toBig(Buffer.from(jwk.d!, 'base64url')),
      x: Buffer.from(jwk.x!, 'base64url'),
      y: Buffer.from(jwk.y!, 'base64url'),
      publicKey,
      keyOps,
      kty,
      created: Math.floor(Date.now() / 1000),
      tags: (body.tags as Record<string, string> | undefined) ?? undefined,
    };
    const versions = this.keys.get(name) ?? [];
    versions.push(key);
    this.keys.set(name, versions);
    return this.bundle(name, key);
  }

  private bundle(name: string, key: KeyVersion): unknown {
    return {
      key: {
        kid: `${this.vaultUrl}/keys/${name}/${key.version}`,
        kty: key.kty,
        key_ops: key.keyOps,
        crv: 'P-384',
        x: b64url(key.x),
        y: b64url(key.y),
      },
      attributes: {
        enabled: true,
        created: key.created,
        updated: key.created,
        recoveryLevel: 'Recoverable+Purgeable',
        recoverableDays: 90,
        exportable: false,
      },
      ...(key.tags ? { tags: key.tags } : {}),
    };
  }

  private digestOf(body: Record<string, unknown>, field: string): Buffer {
    if (body.alg !== 'ES384') throw new HttpError(400, 'BadParameter', `Algorithm ${String(body.alg)} is not supported for a P-384 key.`);
    const raw = body[field];
    if (typeof raw !== 'string') throw new HttpError(400, 'BadParameter', `Property ${field} is required.`);
    const digest = Buffer.from(raw, 'base64url');
    if (digest.length !== 48) throw new HttpError(400, 'BadParameter', 'Invalid length of the digest for ES384 (must be 48 bytes).');
    return digest;
  }

  private sign(name: string, key: KeyVersion, body: Record<string, unknown>): unknown {
    if (!key.keyOps.includes('sign')) throw new HttpError(403, 'Forbidden', 'Operation sign is not permitted on this key.');
    const digest = this.digestOf(body, 'value');
    return { kid: `${this.vaultUrl}/keys/${name}/${key.version}`, value: b64url(signP384Digest(key.d, digest)) };
  }

  private verify(key: KeyVersion, body: Record<string, unknown>): unknown {
    if (!key.keyOps.includes('verify')) throw new HttpError(403, 'Forbidden', 'Operation verify is not permitted on this key.');
    const digest = this.digestOf(body, 'digest');
    const signature = typeof body.value === 'string' ? Buffer.from(body.value, 'base64url') : Buffer.alloc(0);
    return { value: verifyP384Digest(toBig(key.x), toBig(key.y), digest, signature) };
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1 << 20) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body.toString('utf8') || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, 'BadParameter', 'The request body is not a JSON object.');
}

/** SHA-384 helper for tests. */
export const sha384 = (data: Uint8Array): Buffer => createHash('sha384').update(data).digest();
