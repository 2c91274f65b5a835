/**
 * The {crl_url} host: the published CRLs and CA certificates, as static content.
 *
 *   GET|HEAD /leaf.crl, /sub-ca.crl    application/pkix-crl   (DER)
 *   GET|HEAD /root-ca.cer, /sub-ca.cer application/pkix-cert  (DER; the certificates' caIssuers point here)
 *   anything else                      404 JSON
 *
 * Headers: Cache-Control "public, max-age=3600" (spec; for a CRL never beyond its nextUpdate, so no cache
 * keeps it past its validity), ETag (SHA-1 of the bytes) with 304 on If-None-Match, Last-Modified (CRL
 * thisUpdate) with 304 on If-Modified-Since.
 *
 * The bytes come from a PublicationSource (the database in production: every host serves the newest row).
 * When the source fails, the last bytes this host served are sent while still valid (a CRL before its
 * nextUpdate); otherwise 503. Nothing stale is ever served. Plain node:http, like the OCSP server.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { isPublicationName, type Publication } from '../shared/pki/publications.js';
import type { PublicationName } from '../shared/pki/publication-files.js';
import { createHardenedServer, sendJsonError } from './http-server.js';

export interface PublicationSource {
  read(name: PublicationName): Promise<Publication | undefined>;
}

export interface CrlHostOptions {
  /** Spec Limits: 3600. */
  maxAgeSeconds?: number;
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

interface Served {
  publication: Publication;
  etag: string;
}

function etagMatches(header: string, etag: string): boolean {
  return header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** HTTP dates carry whole seconds. */
function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function createCrlHostListener(source: PublicationSource, options: CrlHostOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const maxAge = options.maxAgeSeconds ?? 3600;
  const now = options.now ?? Date.now;
  const logger = options.logger;
  /** Last bytes served per name: the fallback while the source is down. */
  const lastServed = new Map<PublicationName, Served>();

  function stillValid(p: Publication): boolean {
    return p.expires === undefined || p.expires.getTime() > now();
  }

  async function lookup(name: PublicationName): Promise<Served | undefined | 'unavailable'> {
    let publication: Publication | undefined;
    try {
      publication = await source.read(name);
    } catch (err) {
      logger?.warn({ err, name }, 'CRL host could not read the publication');
      const previous = lastServed.get(name);
      return previous && stillValid(previous.publication) ? previous : 'unavailable';
    }
    if (!publication) {
      lastServed.delete(name);
      return undefined;
    }
    const previous = lastServed.get(name);
    if (previous && Buffer.compare(previous.publication.der, publication.der) === 0) return previous;
    const served = { publication, etag: `"${createHash('sha1').update(publication.der).digest('hex')}"` };
    lastServed.set(name, served);
    return served;
  }

  function send(req: IncomingMessage, res: ServerResponse, served: Served): void {
    const p = served.publication;
    const age = p.expires ? Math.min(maxAge, Math.max(0, Math.floor((p.expires.getTime() - now()) / 1000))) : maxAge;
    const headers: OutgoingHttpHeaders = {
      'Cache-Control': `public, max-age=${age}`,
      ETag: served.etag,
      'Last-Modified': new Date(seconds(p.lastModified) * 1000).toUTCString(),
      'X-Content-Type-Options': 'nosniff',
    };
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    // RFC 9110 13.2.2: If-None-Match decides when present; If-Modified-Since only without it.
    const notModified = inm !== undefined ? etagMatches(inm, served.etag) : ims !== undefined && !Number.isNaN(Date.parse(ims)) && seconds(p.lastModified) <= Date.parse(ims) / 1000;
    if (notModified) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': p.contentType, 'Content-Length': p.der.length });
    res.end(req.method === 'HEAD' ? undefined : p.der);
  }

  return (req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    req.resume(); // no request bodies here
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJsonError(res, 405, 'method_not_allowed', 'use GET', { Allow: 'GET, HEAD' });
      return;
    }
    const name = (req.url ?? '/').split('?', 1)[0]!.slice(1);
    if (!isPublicationName(name)) {
      sendJsonError(res, 404, 'not_found', 'no such file; published here: leaf.crl, sub-ca.crl, root-ca.cer, sub-ca.cer');
      return;
    }
    lookup(name).then(
      (served) => {
        if (res.headersSent || res.destroyed) return;
        if (served === 'unavailable') sendJsonError(res, 503, 'unavailable', `${name} cannot be read right now; retry later`, { 'Retry-After': '30' });
        else if (!served) sendJsonError(res, 404, 'not_found', `${name} has not been published yet`);
        else send(req, res, served);
      },
      (err: unknown) => {
        logger?.error({ err, name }, 'CRL host failed');
        if (!res.headersSent && !res.destroyed) sendJsonError(res, 500, 'internal_error', 'internal server error');
      },
    );
  };
}

/** An http.Server for the CRL host, with short timeouts (not yet listening; see listenServer). */
export function createCrlHost(source: PublicationSource, options: CrlHostOptions = {}): Server {
  return createHardenedServer(createCrlHostListener(source, options));
}
