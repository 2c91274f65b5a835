/**
 * The typed client cannot drift from the API: its types are what openapi-typescript makes of the document the API
 * serves, and the package is versioned with the service. Its CLI is linked where `npx mss` finds it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../../bin/client-types.js';

const root = (file: string) => new URL(`../../${file}`, import.meta.url);

describe('the typed client (clients/typescript)', function () {
  this.timeout(60_000);

  it("its generated types are the current OpenAPI document's (npm run client:generate writes them)", async () => {
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    const current = await clientTypesSource();
    expect(committed === current, 'clients/typescript/src/generated/openapi.ts is out of step with the API: run npm run client:generate').to.equal(true);
    // The check compares something real: every path of the document is in the types.
    expect(current).to.include('"/v1/media/sign"').and.include('"Idempotency-Key"?: string');
  });

  it("has the service's version", () => {
    const version = (file: string) => (JSON.parse(readFileSync(root(file), 'utf8')) as { version: string }).version;
    expect(version('clients/typescript/package.json')).to.equal(version('package.json'));
  });

  it('npm ci links its bin: node_modules/.bin/mss (what npx mss runs) answers --help', () => {
    const run = spawnSync(new URL('node_modules/.bin/mss', root('')).pathname, ['--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^Usage: mss <command>/).and.include('sign <files or folders...> --out DIR');
  });
});
