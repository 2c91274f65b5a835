import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface LocalHttpsServer {
  server: https.Server;
  port: number;
  /** The certificate (for 127.0.0.1) to trust, e.g. as REMOTE_MANIFESTS_CA_FILE. */
  caFile: string;
  /** The path of every request, in order. */
  requests: string[];
  /** What every path not redirected answers. */
  body: { bytes: Uint8Array };
  /** Answers wait for `gate.open` (a test holds it to keep fetches in flight). */
  gate: { open: Promise<void> };
  /** Paths answered with a 302 to another path. */
  redirects: Map<string, string>;
}

/**
 * A local HTTPS server (its certificate made with openssl in `dir`, for 127.0.0.1) that serves one body, counts
 * requests and redirects the paths it is told to.
 */
export async function localHttpsServer(dir: string): Promise<LocalHttpsServer> {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { cwd: dir, stdio: 'ignore' });
  const requests: string[] = [];
  const body = { bytes: new Uint8Array() };
  const gate = { open: Promise.resolve() };
  const redirects = new Map<string, string>();
  const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
    const at = req.url ?? '';
    requests.push(at);
    void gate.open.then(() => {
      const to = redirects.get(at);
      if (to) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'application/c2pa' }).end(body.bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, caFile: path.join(dir, 'cert.pem'), requests, body, gate, redirects };
}
