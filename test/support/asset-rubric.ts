/**
 * Evaluates a C2PA conformance program asset rubric (YAML profile of json-formula traits) over a crJSON report, as the
 * program's reference evaluator does (c2pa_conformance_rubric_evaluator.py, release 1.0; a copy of the profiles is in
 * test/fixtures/asset-rubrics/):
 * - the first YAML document holds `variables` (json-formula globals) and `expressions` (named expressions, callable
 *   as functions: their arguments are the global array `$args`, `@` stays the caller's current value; the arity of
 *   each is inferred from its call sites and the highest `$args[N]` it reads);
 * - every later document is a list of traits; a trait with `failIfMatched` passes when its value is not a non-empty
 *   list (`warnIfMatched`: warns instead), any other passes when its value is a non-empty list, true, a number above
 *   0 or any other non-null value;
 * - `$expected_spec_version` is the `specN.N` of the profile's file name unless given;
 * - there is no "not applicable": a trait gated off (e.g. by spec version, or on an action the manifest does not
 *   have) evaluates to an empty list or true, and passes.
 * Where the reference turns an exception into a failed trait, this evaluator reports the trait as 'error' (never a
 * pass), and refuses at load time a profile whose expressions do not compile or call a function json-formula does
 * not have, so a profile this port cannot run fails loudly instead of passing quietly.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import JsonFormula, { dataTypes, type CustomFunction, type FunctionInterpreter } from '@adobe/json-formula';
import { parseAllDocuments } from 'yaml';

export type TraitOutcome = 'true' | 'false' | 'warn' | 'error';

export interface TraitResult {
  id: string;
  outcome: TraitOutcome;
  /** The list a failIfMatched / warnIfMatched trait matched (what failed), or the error message. */
  matches?: unknown;
  error?: string;
}

export interface RubricReport {
  name: string;
  expectedSpecVersion: string | undefined;
  results: TraitResult[];
}

interface Trait {
  id?: string;
  expression?: string;
  failIfMatched?: boolean;
  warnIfMatched?: boolean;
}

interface RubricMetadata {
  rubric_metadata?: { name?: string };
  variables?: Record<string, unknown>;
  expressions?: Record<string, string | null>;
}

export interface Rubric {
  name: string;
  file: string;
  evaluate(crJson: unknown, options?: { specVersion?: string }): RubricReport;
}

/** _infer_arities of the reference: the most arguments any call site passes, and at least N+1 for `$args[N]`. */
function inferArities(expressions: Record<string, string>): Record<string, number> {
  const arities: Record<string, number> = {};
  for (const name of Object.keys(expressions)) {
    arities[name] = 0;
    const call = new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\(`, 'g');
    for (const body of Object.values(expressions)) {
      for (const m of body.matchAll(call)) {
        const rest = body.slice(m.index + m[0].length);
        let count = 0;
        if (!rest.startsWith(')')) {
          let depth = 1;
          count = 1;
          for (const c of rest) {
            if (c === '(') depth += 1;
            else if (c === ')') {
              depth -= 1;
              if (depth === 0) break;
            } else if (c === ',' && depth === 1) count += 1;
          }
        }
        arities[name] = Math.max(arities[name]!, count);
      }
    }
  }
  for (const [name, body] of Object.entries(expressions)) {
    const indexes = [...body.matchAll(/\$args\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (indexes.length) arities[name] = Math.max(arities[name]!, Math.max(...indexes) + 1);
    else if (/\$args\b/.test(body)) arities[name] = Math.max(arities[name]!, 1);
  }
  return arities;
}

/** Every function an AST calls. */
function calledFunctions(ast: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(ast)) for (const a of ast) calledFunctions(a, into);
  else if (ast && typeof ast === 'object') {
    const node = ast as { type?: unknown; name?: unknown };
    if (node.type === 'Function' && typeof node.name === 'string') into.add(node.name);
    for (const value of Object.values(ast)) if (value && typeof value === 'object') calledFunctions(value, into);
  }
  return into;
}

/** Outcome of a trait's value, as the reference evaluator decides it. */
function outcomeOf(trait: Trait, value: unknown): { outcome: TraitOutcome; matches?: unknown } {
  const matched = Array.isArray(value) && value.length > 0;
  if (trait.failIfMatched) return matched ? { outcome: 'false', matches: value } : { outcome: 'true' };
  if (trait.warnIfMatched) return matched ? { outcome: 'warn', matches: value } : { outcome: 'true' };
  if (Array.isArray(value)) return { outcome: matched ? 'true' : 'false' };
  if (typeof value === 'boolean') return { outcome: value ? 'true' : 'false' };
  if (typeof value === 'number') return { outcome: value > 0 ? 'true' : 'false' };
  return { outcome: value !== null && value !== undefined ? 'true' : 'false' };
}

export function loadRubric(file: string): Rubric {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  if (!Array.isArray(docs) || docs.length < 2) throw new Error(`${file}: expected the metadata document and at least one document of traits`);
  for (const doc of docs) if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
  const [first, ...rest] = docs.map((d) => d.toJS() as unknown);
  const metadata = (first ?? {}) as RubricMetadata;
  const traits: Trait[] = [];
  for (const doc of rest) {
    if (Array.isArray(doc)) traits.push(...(doc.filter((t) => t && typeof t === 'object') as Trait[]));
    else if (doc && typeof doc === 'object' && !('block' in doc)) traits.push(doc as Trait);
  }
  if (!traits.length) throw new Error(`${file}: no traits`);

  const variables = { ...(metadata.variables ?? {}) };
  const bodies = Object.fromEntries(Object.entries(metadata.expressions ?? {}).map(([k, v]) => [k, String(v ?? '').trim()]));
  const arities = inferArities(bodies);
  const dollarNames = new Set(Object.keys(variables));
  for (const body of Object.values(bodies)) for (const m of body.matchAll(/\$[a-zA-Z0-9_]+/g)) dollarNames.add(m[0]);
  dollarNames.add('$expected_spec_version');

  const compiler = new JsonFormula();
  const compile = (what: string, expression: string) => {
    try {
      return compiler.compile(expression, [...dollarNames]);
    } catch (err) {
      throw new Error(`${path.basename(file)}: ${what} does not compile: ${(err as Error).message}`);
    }
  };
  const asts = Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, compile(`expression ${name}`, body)]));
  const traitAsts = traits.map((t) => (t.expression ? compile(`trait ${t.id}`, t.expression.trim()) : undefined));

  const functions: Record<string, CustomFunction> = {};
  for (const [name, ast] of Object.entries(asts)) {
    const arity = arities[name]!;
    functions[name] = {
      _signature: Array.from({ length: arity }, () => ({ types: [dataTypes.TYPE_ANY] })),
      _func: (args: unknown[], data: unknown, interpreter: FunctionInterpreter) => {
        if (arity === 0) return interpreter.search(ast, data);
        const saved = interpreter.globals.$args;
        interpreter.globals.$args = [...args];
        try {
          return interpreter.search(ast, data);
        } finally {
          if (saved === undefined) delete interpreter.globals.$args;
          else interpreter.globals.$args = saved;
        }
      },
    };
  }
  const engine = new JsonFormula(functions);

  // A function neither json-formula nor the profile defines would only fail when reached: refuse the profile now.
  const known = (engine as unknown as { formula?: { runtime?: { functionTable?: Record<string, unknown> } } }).formula?.runtime?.functionTable;
  if (!known) throw new Error('@adobe/json-formula: its function table was not found (internals changed); cannot check the profile');
  for (const [what, ast] of [...Object.entries(asts), ...traitAsts.map((a, i) => [`trait ${traits[i]!.id}`, a] as const)]) {
    for (const fn of calledFunctions(ast)) {
      if (!Object.hasOwn(known, fn)) throw new Error(`${path.basename(file)}: ${what} calls ${fn}(), which json-formula does not have`);
    }
  }

  const name = metadata.rubric_metadata?.name ?? path.basename(file);
  return {
    name,
    file,
    evaluate(crJson, options = {}) {
      const expectedSpecVersion = options.specVersion ?? /spec(\d+\.\d+)/.exec(path.basename(file))?.[1];
      const globals: Record<string, unknown> = { ...variables };
      if (expectedSpecVersion !== undefined) globals.$expected_spec_version = expectedSpecVersion;
      const results = traits.flatMap((trait, i): TraitResult[] => {
        const ast = traitAsts[i];
        if (ast === undefined) return [];
        const id = trait.id ?? 'unnamed_trait';
        try {
          return [{ id, ...outcomeOf(trait, engine.run(ast, crJson, 'en-US', globals)) }];
        } catch (err) {
          return [{ id, outcome: 'error', error: (err as Error).message }];
        }
      });
      return { name, expectedSpecVersion, results };
    },
  };
}

/** The traits that did not pass, as "id: outcome matches/error" lines (empty when all passed). */
export function unmet(report: RubricReport): string[] {
  return report.results
    .filter((r) => r.outcome !== 'true')
    .map((r) => `${report.name}: ${r.id} ${r.outcome}${r.error ? ` (${r.error})` : ''}${r.matches === undefined ? '' : ` ${JSON.stringify(r.matches)}`}`);
}
