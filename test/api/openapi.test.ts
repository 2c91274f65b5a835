import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import request from 'supertest';
import { startTestApi, type TestApi } from '../support/api.js';

/** The document type Swagger Parser takes (from openapi-types, which this project does not depend on directly). */
type OpenApiDocument = Awaited<ReturnType<typeof SwaggerParser.validate>>;

/** What router@2.3's `listRoutes()` returns: one entry per registered path, routes with methods, mounts with the router. */
interface RouteInfo {
  path: string | RegExp;
  methods: string[] | undefined;
  router: Listable | undefined;
}
interface Listable {
  listRoutes?(): RouteInfo[];
}

/**
 * Every (METHOD, path) the Express app routes, with the mount prefixes joined in. Express 5's router (path-to-regexp
 * v8) keeps no `layer.regexp`; router@2.3 records each layer's registered path and exposes it through
 * `Router#listRoutes()`, which lists `.get()`/`.post()`/... routes and `.use(path, router)` mounts (recursed into
 * here). Plain middleware, e.g. express.static under /app or Swagger UI under /docs, is not a route and is not listed.
 */
function appRoutes(router: Listable, prefix = ''): Array<{ method: string; path: string }> {
  if (typeof router.listRoutes !== 'function') throw new Error('router has no listRoutes(); router@>=2.3 is required for this test');
  const out: Array<{ method: string; path: string }> = [];
  for (const entry of router.listRoutes()) {
    if (typeof entry.path !== 'string') throw new Error(`a RegExp path (${String(entry.path)}) cannot be matched against the OpenAPI document`);
    const full = joinPath(prefix, entry.path);
    if (entry.router) {
      out.push(...appRoutes(entry.router, full));
      continue;
    }
    const methods = entry.methods ?? [];
    for (const method of methods) {
      // listRoutes appends the HEAD that Express answers for every GET; the GET operation describes it.
      if (method === 'HEAD' && methods.includes('GET')) continue;
      out.push({ method: method.toLowerCase(), path: full });
    }
  }
  return out;
}

function joinPath(prefix: string, p: string): string {
  const joined = `${prefix.replace(/\/+$/, '')}/${p.replace(/^\/+/, '')}`;
  return joined.length > 1 ? joined.replace(/\/+$/, '') : '/';
}

/** Express `/org/users/:user_id` -> OpenAPI `/org/users/{user_id}`. */
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_$][\w$]*)/g, '{$1}');

/**
 * Routes that are not part of the API and so are not in the document: the browser app's shell (api/web-app.ts serves
 * index.html at / and /index.html; its assets under /app/* are static middleware and never listed) and the API
 * description itself (/openapi.json; Swagger UI under /docs is middleware and never listed).
 */
const NOT_API = new Set(['get /', 'get /index.html', 'get /verify', 'get /verify.html', 'get /openapi.json']);

describe('OpenAPI document', () => {
  let api: TestApi;
  let doc: { paths: Record<string, Record<string, unknown>> };
  before(async () => {
    api = await startTestApi();
    doc = (await request(api.app).get('/openapi.json').expect(200)).body;
  });
  after(() => api.close());

  it('is a valid OpenAPI document', async () => {
    // validate() dereferences in place; keep the served copy intact for the other tests.
    await SwaggerParser.validate(structuredClone(doc) as unknown as OpenApiDocument);
  });

  it('describes every API route the app mounts', () => {
    const routes = appRoutes(api.app.router as Listable);
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    // The walk must see the app's routes at all, including ones in nested mounts, or this test proves nothing.
    expect(keys).to.include.members(['post /auth/login', 'patch /org/users/:user_id', 'post /v1/media/sign', 'get /health']);
    // Each exclusion must still name a real route, so the list cannot go stale and hide anything.
    expect(keys).to.include.members([...NOT_API]);

    const undocumented = routes
      .filter((r) => !NOT_API.has(`${r.method} ${r.path}`))
      .filter((r) => doc.paths[toOpenApiPath(r.path)]?.[r.method] === undefined)
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(undocumented, 'routes without an @openapi description').to.deep.equal([]);
  });
});
