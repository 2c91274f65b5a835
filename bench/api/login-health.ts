/**
 * bench/api/login-health: how long /health takes at its worst while sign-ins are refused, against its limit of 100 ms.
 * Starts `npm start` of a checkout with its defaults (bcrypt cost 12, as in production), then for each load probes
 * GET /health every 10 ms while it runs:
 *
 *   idle        nothing else
 *   one-address 20 parallel sign-ins with unknown e-mail addresses from one client address (AUTH_RATE_LIMIT's
 *               allowance: each compares against the dummy hash at the full cost)
 *   many        60 parallel sign-ins with unknown e-mail addresses from 60 client addresses (past PASSWORD_CHECKS_MAX:
 *               the rest are refused with 503 auth_busy)
 *
 * The peer, probed in turn in the same run: a bare Node HTTP server in a process of its own; its worst latency is
 * what the machine's load alone costs. Prints the worst and p50 /health latency per load, the ratio of the worst to
 * 100 ms, the peer's worst, the service's longest event-loop delay meanwhile (its /metrics), and the sign-in answers
 * (status and code: count, slowest seconds).
 *
 *   npx tsx bench/api/login-health.ts [checkout=.]        e.g. a checkout of the previous commit, for before/after
 *
 * Extra variables are passed on (e.g. PASSWORD_THREADS=2, PASSWORD_CHECKS_MAX=64, BCRYPT_ROUNDS=12).
 */
import path from 'node:path';
import { eventLoopLagMaxMs, fmt, p50, probeWhile, withService } from '../support/health-probe.js';

const ROOT = path.resolve(process.argv[2] ?? '.');
const LIMIT_MS = 100;
const PROBE_EVERY_MS = 10;
const PORT = 4500 + Math.floor(Math.random() * 400);
const PEER_PORT = PORT + 404;
const base = `http://127.0.0.1:${PORT}`;

const passOn = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(PASSWORD_|BCRYPT_ROUNDS|AUTH_RATE_LIMIT|REDIS_URL)/.test(k))) as Record<string, string>;

interface Answer {
  status: number;
  code: string;
  seconds: number;
}

async function post(route: string, body: unknown, from: string): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${route}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'X-Forwarded-For': from } });
    const answer = (await res.json()) as { error?: { code: string } };
    return { status: res.status, code: answer.error?.code ?? 'ok', seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    return { status: 0, code: (err as Error).message, seconds: (performance.now() - started) / 1000 };
  }
}

let guess = 0;
const badLogin = (from: string) => post('/auth/login', { email: `nobody-${(guess += 1)}@example.com`, password: 'a guessed password' }, from);

/** "401 invalid_credentials x20 (slowest 9.1 s)" for each status and code. */
function summary(answers: Answer[]): string {
  const groups = new Map<string, Answer[]>();
  for (const a of answers) groups.set(`${a.status} ${a.code}`, [...(groups.get(`${a.status} ${a.code}`) ?? []), a]);
  return [...groups].map(([key, group]) => `${key} x${group.length} (slowest ${Math.max(...group.map((a) => a.seconds)).toFixed(1)} s)`).join(', ');
}

async function main() {
  console.log(`checkout ${ROOT}; npm start on :${PORT}; ${Object.entries(passOn).map(([k, v]) => `${k}=${v}`).join(' ') || 'default settings (bcrypt cost 12)'}`);
  const probe = (load: Promise<unknown>) => probeWhile(load, `${base}/health`, PEER_PORT, PROBE_EVERY_MS);
  await withService(ROOT, PORT, PEER_PORT, { TRUST_PROXY_HOPS: '1', ...passOn }, async (service) => {
    // Warm-up, not measured: a registration and a sign-in (the password threads start, the dummy hash is made), and
    // the major GC of what start-up left.
    const registered = await post('/auth/register', { email: 'bench@example.com', password: 'a long enough passphrase', org_name: 'Bench' }, '192.0.2.1');
    if (registered.status !== 201) throw new Error(`registration answered ${registered.status} ${registered.code}`);
    await probe(Promise.all([new Promise((resolve) => setTimeout(resolve, 10_000)), post('/auth/login', { email: 'bench@example.com', password: 'a long enough passphrase' }, '192.0.2.2')]));
    const loads: [string, () => Promise<Answer[]>][] = [
      ['idle', async () => {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return [];
      }],
      ['one-address', () => Promise.all(Array.from({ length: 20 }, () => badLogin('203.0.113.1')))],
      ['many', () => Promise.all(Array.from({ length: 60 }, (_, i) => badLogin(`198.51.100.${i + 1}`)))],
    ];
    for (const [name, run] of loads) {
      await eventLoopLagMaxMs(PORT + 403);
      const load = run();
      const { health, peer: peerLatencies } = await probe(load);
      const answers = await load;
      const worst = Math.max(...health);
      const lag = await eventLoopLagMaxMs(PORT + 403);
      console.log(
        `${name.padEnd(11)} /health worst ${fmt(worst)} (${(worst / LIMIT_MS).toFixed(2)} of the ${LIMIT_MS} ms limit), p50 ${fmt(p50(health))}, ${health.length} probes;` +
          ` peer worst ${fmt(Math.max(...peerLatencies))}; service event-loop delay max ${fmt(lag)} | alive ${service.alive()}`,
      );
      if (answers.length) console.log(`            sign-ins: ${summary(answers)}`);
    }
  });
}

await main();
