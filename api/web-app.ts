import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Config } from '../shared/config.js';

/** The browser application: plain ES modules, HTML and CSS in `web/`, no build step. */
export const WEB_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web');

/**
 * The web app's Content-Security-Policy, stricter than helmet's default that the rest of the API keeps
 * (Swagger UI at /docs needs inline styles): scripts and styles from this origin only, no inline script or
 * style, no plugins, no framing, requests to this origin only. `blob:` images are the previews of files the
 * user picked; the thumbnails of recovered signed images on the public verify page are loaded from this
 * origin's API (`/v1/manifests/{id}/thumbnail`), which `'self'` covers. Trusted Types are required with no
 * policy allowed, so the browser itself refuses any HTML-string sink (innerHTML, outerHTML,
 * insertAdjacentHTML, document.write): pages build DOM nodes and set text with textContent only.
 *
 * upgrade-insecure-requests is sent only when BASE_URL is https. On a plain-http deployment (local
 * development, or a phone on the LAN reaching http://<machine>:3000) it would rewrite every same-origin
 * asset and API request to https, where nothing listens, and the page would not load. Behind TLS it is
 * kept, next to helmet's Strict-Transport-Security.
 */
export function webCspDirectives(config: Pick<Config, 'baseUrl'>): Record<string, string[]> {
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'blob:', 'data:'],
    'connect-src': ["'self'"],
    'font-src': ["'self'"],
    'manifest-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
    'require-trusted-types-for': ["'script'"],
    'trusted-types': ["'none'"],
  };
  if (config.baseUrl.startsWith('https:')) directives['upgrade-insecure-requests'] = [];
  return directives;
}

/**
 * Serves the app shell at `/`, the public verify page (no sign-in) at `/verify` and their assets under `/app/`;
 * everything else falls through to the API.
 */
export function webAppRouter(config: Pick<Config, 'baseUrl'>): Router {
  const router = Router();
  const csp: RequestHandler = helmet.contentSecurityPolicy({ useDefaults: false, directives: webCspDirectives(config) });
  // Revalidate on every load (ETag), so a deployment never leaves a browser on stale modules.
  const noCache: RequestHandler = (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    next();
  };
  router.get(['/', '/index.html'], csp, noCache, (_req, res) => {
    res.sendFile(path.join(WEB_ROOT, 'index.html'));
  });
  // The public verify page: its own shell, so nothing of the signed-in app (routes, session) loads there.
  router.get(['/verify', '/verify.html'], csp, noCache, (_req, res) => {
    res.sendFile(path.join(WEB_ROOT, 'verify.html'));
  });
  router.use('/app', csp, noCache, express.static(path.join(WEB_ROOT, 'app'), { index: false, redirect: false, dotfiles: 'ignore', cacheControl: false }));
  return router;
}
