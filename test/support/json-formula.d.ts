// @adobe/json-formula ships no types: the part test/support/asset-rubric.ts uses.
declare module '@adobe/json-formula' {
  export const dataTypes: { TYPE_ANY: number };
  export interface FunctionInterpreter {
    globals: Record<string, unknown>;
    search(ast: unknown, data: unknown): unknown;
  }
  export interface CustomFunction {
    _func: (args: unknown[], data: unknown, interpreter: FunctionInterpreter) => unknown;
    _signature: { types: number[] }[];
  }
  export default class JsonFormula {
    constructor(customFunctions?: Record<string, CustomFunction>, stringToNumber?: ((s: string) => number) | null, debug?: string[]);
    compile(expression: string, allowedGlobalNames?: string[]): unknown;
    run(ast: unknown, json: unknown, language: string, globals: Record<string, unknown>): unknown;
  }
}
