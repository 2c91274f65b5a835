/** A served OpenAPI document, as much of it as the request fuzzer reads. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  nullable?: boolean;
}

export interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, e.g. `/v1/media/jobs/{job_id}`. */
  path: string;
  parameters: Parameter[];
  /** Request body media types, e.g. `application/json`, `multipart/form-data`, `image/*`. */
  bodyTypes: string[];
  /** The schema of the JSON body, when the operation takes one. */
  jsonSchema?: Schema;
  secured: boolean;
  /** The response statuses the operation documents, e.g. `['200', '400', '503']`. */
  statuses: string[];
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** Every operation of the document, with parameter references resolved. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = raw as { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; security?: unknown[]; responses?: Record<string, unknown> };
      const content = op.requestBody?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path: p,
        parameters: (op.parameters ?? []).map((param) => resolveParameter(doc, param)),
        bodyTypes: Object.keys(content),
        ...(content['application/json']?.schema ? { jsonSchema: resolve(doc, content['application/json'].schema) } : {}),
        secured: Array.isArray(op.security) && op.security.length > 0,
        statuses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return out;
}

function resolveParameter(doc: OpenApiDoc, param: Parameter): Parameter {
  if (!param.$ref) return param;
  const name = param.$ref.replace('#/components/parameters/', '');
  const found = doc.components?.parameters?.[name];
  if (!found) throw new Error(`unresolved parameter ${param.$ref}`);
  return found;
}

/** A schema with `$ref`s and `allOf`s resolved (recursively), so that its properties can be walked. */
export function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const found = doc.components?.schemas?.[name];
    if (!found) throw new Error(`unresolved schema ${schema.$ref}`);
    return resolve(doc, { ...found, ...withoutRef(schema) });
  }
  if (schema.allOf) {
    const merged: Schema = { ...schema };
    delete merged.allOf;
    for (const part of schema.allOf) Object.assign(merged, resolve(doc, part));
    return resolve(doc, merged);
  }
  const out: Schema = { ...schema };
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(doc, v)]));
  if (schema.items) out.items = resolve(doc, schema.items);
  return out;
}

function withoutRef(schema: Schema): Schema {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

/** The paths of every string property of a (resolved) schema, e.g. `['manifest', 'publisher', 'name']`. */
export function stringFields(schema: Schema, prefix: string[] = []): string[][] {
  if (schema.type === 'string') return [prefix];
  if (schema.properties) return Object.entries(schema.properties).flatMap(([k, v]) => stringFields(v, [...prefix, k]));
  if (schema.items) return stringFields(schema.items, [...prefix, '0']);
  return [];
}
