/**
 * Runs before the test suite (.mocharc.json `require`): everything the tests drive must be there, or the run stops at
 * once with one line per missing thing and the command that installs it, instead of failing test by test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { CHROMIUM_PATH } from './browser-path.js';

interface Missing {
  what: string;
  /** Debian packages that provide it. */
  packages: string[];
}

/** Tools the tests run, the Debian package of each, and what needs it. */
const TOOLS: Array<{ command: string; pkg: string; why: string }> = [
  { command: 'openssl', pkg: 'openssl', why: 'PKI, OCSP and TSA checks' },
  { command: 'ffmpeg', pkg: 'ffmpeg', why: 'video and audio test files' },
  { command: 'redis-server', pkg: 'redis-server', why: 'tests that stop Redis run their own' },
  { command: 'pgrep', pkg: 'procps', why: 'checks that child processes end' },
  { command: 'curl', pkg: 'curl', why: 'TSA interoperability checks' },
  { command: 'pdftoppm', pkg: 'poppler-utils', why: 'PDF claim thumbnails' },
];

const onPath = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

async function postgresProblem(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ ok: boolean }>('SELECT rolsuper OR rolcreatedb AS ok FROM pg_roles WHERE rolname = current_user');
    if (!rows[0]?.ok) return `the role of ${url} may not create databases (the tests make one per file): ALTER ROLE ... CREATEDB`;
    return undefined;
  } catch (err) {
    return `no Postgres answers at ${url}: ${(err as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redisProblem(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(3000, () => done(`no Redis answers at ${url}: timed out`));
    socket.on('error', (err) => done(`no Redis answers at ${url}: ${err.message}`));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d: Buffer) => done(/^\+PONG|^-NOAUTH/.test(d.toString()) ? undefined : `Redis at ${url} answered ${JSON.stringify(d.toString().trim())} to PING`));
  });
}

const missing: Missing[] = [];
for (const tool of TOOLS) {
  if (!onPath(tool.command)) missing.push({ what: `${tool.command} is not installed (${tool.why})`, packages: [tool.pkg] });
}
if (!existsSync(CHROMIUM_PATH)) missing.push({ what: `chromium is not at ${CHROMIUM_PATH} (browser tests; or set CHROMIUM_PATH)`, packages: ['chromium'] });

const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const [pgProblem, rdProblem] = await Promise.all([postgresProblem(databaseUrl), redisProblem(redisUrl)]);
if (pgProblem) missing.push({ what: `${pgProblem} (TEST_DATABASE_URL)`, packages: ['postgresql'] });
if (rdProblem) missing.push({ what: `${rdProblem} (TEST_REDIS_URL)`, packages: ['redis-server'] });

if (missing.length) {
  const packages = [...new Set(missing.flatMap((m) => m.packages))];
  const servers = Boolean(pgProblem || rdProblem);
  process.stderr.write(
    [
      'The test suite cannot run here yet:',
      ...missing.map((m) => `  - ${m.what}`),
      '',
      `Install what is missing: sudo apt-get install -y ${packages.join(' ')}`,
      ...(servers ? ['Postgres and Redis must also be running: .ci/run installs and starts both, then runs the suite.'] : []),
      '',
    ].join('\n'),
  );
  process.exit(1);
}
