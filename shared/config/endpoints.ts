/** Where the service's processes listen and the addresses it publishes (in certificates, links and manifests). */
import { host, int, url, type Env } from './parse.js';

export interface EndpointSettings {
  port: number;
  ocspPort: number;
  crlPort: number;
  /** Port of the service's own RFC 3161 time-stamp authority (served by the ocsp process). */
  tsaPort: number;
  baseUrl: string;
  ocspUrl: string;
  crlUrl: string;
  /**
   * The RFC 3161 TSA the workers ask for the timestamp of every signature: the service's own (default,
   * http://localhost:$TSA_PORT) or an external one (e.g. a public qualified TSA).
   */
  tsaUrl: string;
  /** The operator listener (/metrics, /queues): never public; loopback by default. */
  opsPort: number;
  opsHost: string;
  /** Number of reverse proxies in front of the API whose X-Forwarded-For is believed (rate limits, logs). */
  trustProxyHops: number;
}

export function endpointSettings(env: Env): EndpointSettings {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const ocspPort = int(env, 'OCSP_PORT', 3001, 0, 65535);
  const crlPort = int(env, 'CRL_PORT', 3002, 0, 65535);
  const tsaPort = int(env, 'TSA_PORT', 3003, 0, 65535);
  const http = ['http:', 'https:'];
  return {
    port,
    ocspPort,
    crlPort,
    tsaPort,
    baseUrl: url(env, 'BASE_URL', `http://localhost:${port}`, http)!,
    ocspUrl: url(env, 'OCSP_URL', `http://localhost:${ocspPort}`, http)!,
    crlUrl: url(env, 'CRL_URL', `http://localhost:${crlPort}`, http)!,
    tsaUrl: url(env, 'TSA_URL', `http://localhost:${tsaPort}`, http)!,
    opsPort: int(env, 'OPS_PORT', 3004, 0, 65535),
    opsHost: host(env, 'OPS_HOST', '127.0.0.1'),
    trustProxyHops: int(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
  };
}
