import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import request from 'supertest';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { OPERATIONS } from '../../api/openapi/document.js';
import { parseBody, parseParams } from '../../api/validation.js';
import { MEDIA_FORMATS } from '../../shared/media/formats.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

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
    expect(undocumented, 'routes without a description in api/schemas').to.deep.equal([]);
  });

  it('lists every format the format registry accepts, wherever a file is sent or returned', () => {
    const all = MEDIA_FORMATS.map((f) => f.mimeType);
    const images = MEDIA_FORMATS.filter((f) => f.kind === 'image').map((f) => f.mimeType);
    const body = (p: string) => doc.paths[p]!.post as { requestBody: { content: Record<string, { encoding?: { file: { contentType: string } } }> } };
    const partTypes = (p: string) => body(p).requestBody.content['multipart/form-data']!.encoding!.file.contentType.split(', ');
    const rawTypes = (p: string) => Object.keys(body(p).requestBody.content).filter((t) => t !== 'multipart/form-data');
    expect(partTypes('/v1/media/upload')).to.have.members(all);
    // Verification also takes a .c2pa manifest store alone (issue 22).
    for (const p of ['/v1/media/verify', '/v1/verify']) expect(partTypes(p), p).to.have.members([...all, 'application/c2pa']);
    // ... and a JSON body naming the file by its URL.
    expect(rawTypes('/v1/verify')).to.have.members([...all, 'application/c2pa', 'application/json']);
    expect(partTypes('/v1/matches/byContent')).to.have.members(images);
    expect(rawTypes('/v1/matches/byContent')).to.have.members(images);
    const download = doc.paths['/v1/media/files/{file_id}']!.get as { responses: { 200: { content: Record<string, unknown> } } };
    // A signed fragmented MP4 rendition comes as a zip of its parts.
    expect(Object.keys(download.responses[200].content)).to.have.members([...all, 'application/zip']);
    const schemas = (doc as unknown as { components: { schemas: Record<string, { enum?: string[] }> } }).components.schemas;
    expect(schemas.MediaType!.enum).to.have.members(all);
    // And says so in words: every format's name is in the upload's description and in the document's opening.
    const upload = doc.paths['/v1/media/upload']!.post as { description: string };
    const info = (doc as unknown as { info: { description: string } }).info.description;
    for (const f of MEDIA_FORMATS) {
      const name = f.label.replace(/ (image|video|audio|raw image|document|e-book|workbook|presentation|text|spreadsheet|drawing)$/, '');
      expect(upload.description, f.label).to.contain(name);
      expect(info, f.label).to.contain(name);
    }
  });

  it("the README's opening lines name every format of the registry, as the document's opening does", () => {
    const opening = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n## ')[0]!.replace(/\s+/g, ' ');
    for (const f of MEDIA_FORMATS) {
      const name = f.label.replace(/ (image|video|audio|raw image|document|e-book|workbook|presentation|text|spreadsheet|drawing)$/, '');
      expect(opening, f.label).to.contain(name);
    }
  });

  describe('is generated from the schemas that validate the requests', () => {
    let admin: Account;
    before(async () => {
      admin = await registerAccount(api.app, 'Contract Org');
    });

    /** Values for path parameters that pass their schema, so that a route reaches its body or query. */
    const PATH_VALUES: Record<string, string> = {
      user_id: '00000000-0000-4000-8000-000000000001',
      key_id: '00000000-0000-4000-8000-000000000002',
      template_id: '00000000-0000-4000-8000-000000000003',
      job_id: '00000000-0000-4000-8000-000000000004',
      file_id: '00000000-0000-4000-8000-000000000005',
      request_id: '00000000-0000-4000-8000-000000000006',
      webhook_id: '00000000-0000-4000-8000-000000000006',
      delivery_id: '00000000-0000-4000-8000-000000000007',
      event_id: '00000000-0000-4000-8000-000000000008',
      version: '1',
      sha256: 'a'.repeat(64),
      manifestId: 'urn:c2pa:contract',
    };
    const target = (op: RouteConfig, query = '') => op.path.replace(/\{(\w+)\}/g, (_m, name: string) => PATH_VALUES[name]!) + query;
    const send = (op: RouteConfig, url: string) => {
      return request(api.app)[op.method as 'get' | 'post' | 'put' | 'patch' | 'delete'](url).set(bearer(admin.access));
    };
    /** What the API answers when a schema refuses `value`: the helper's own 400, as the route would throw it. */
    const refusalOf = (parse: () => unknown) => {
      try {
        parse();
      } catch (err) {
        return { code: (err as { code: string }).code, message: (err as Error).message };
      }
      return undefined;
    };

    it('every JSON body: the schema in the document is the one the route parses with (same refusal, word for word)', async () => {
      const checked: string[] = [];
      for (const op of OPERATIONS) {
        const json = op.request?.body?.content['application/json'];
        const schema = (json && 'schema' in json ? json.schema : undefined) as z.ZodType | undefined;
        if (!schema) continue;
        // A body the schema refuses: none at all, or each documented field given as a number.
        const candidates: unknown[] = [{}, { all: 'yes' }, { name: 5 }];
        const body = candidates.find((c) => refusalOf(() => parseBody(schema, c)) !== undefined);
        expect(body, `${op.method} ${op.path}: no refused body`).not.to.equal(undefined);
        const expected = refusalOf(() => parseBody(schema, body));
        const res = await send(op, target(op)).send(body as object);
        expect({ status: res.status, ...res.body.error }, `${op.method.toUpperCase()} ${op.path}`).to.deep.equal({ status: 400, ...expected });
        checked.push(`${op.method} ${op.path}`);
      }
      expect(checked).to.include.members(['post /auth/login', 'post /v1/media/sign', 'put /v1/manifest-templates/{template_id}', 'patch /org', 'post /v1/matches/byBinding']);
    });

    it('every path and query parameter: the schema in the document is the one the route parses with', async () => {
      const checked: string[] = [];
      for (const op of OPERATIONS) {
        for (const where of ['params', 'query'] as const) {
          const schema = op.request?.[where] as z.ZodType | undefined;
          if (!schema) continue;
          const names = Object.keys((schema as unknown as { shape?: object }).shape ?? (schema as unknown as { in: { shape: object } }).in.shape);
          for (const name of names) {
            const given = where === 'params' ? { ...PATH_VALUES, [name]: 'not-valid!' } : { [name]: '-1' };
            const expected = refusalOf(() => parseParams(schema, where === 'params' ? Object.fromEntries(names.map((n) => [n, given[n]])) : given));
            if (!expected) continue;
            const url = where === 'params' ? op.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(given[n]!)) : target(op, `?${name}=-1`);
            const res = await send(op, url);
            // A HEAD answer has no body: its status is all there is to compare.
            if (op.method === 'head') expect(res.status, `HEAD ${url}`).to.equal(400);
            else expect({ status: res.status, ...res.body.error }, `${op.method.toUpperCase()} ${url}`).to.deep.equal({ status: 400, ...expected });
            checked.push(`${op.method} ${op.path} ${name}`);
          }
        }
      }
      expect(checked).to.include.members(['get /v1/media/jobs status', 'get /v1/media/jobs/{job_id} wait', 'get /v1/media/uploads limit', 'get /v1/manifest-templates/{template_id}/versions/{version} version', 'get /v1/matches/byBinding alg', 'delete /org/users/{user_id} user_id']);
    });
  });
});
