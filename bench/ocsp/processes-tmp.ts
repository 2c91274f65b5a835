import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { ab, groupCpuMs, median, run, type AbResult } from './ab.js';
import { startService } from './servers.js';
const dir = (await makeOpensslChain()).dir;
const repo = path.resolve('.');
const variants = ['0', '1', '2'];
const services = [];
for (const p of variants) services.push(await startService(`p${p}`, repo, dir, { OCSP_PROCESSES: p }));
const reqs = [];
for (const [i, s] of services.entries()) {
  const f = `p${variants[i]}-req.der`;
  await run('openssl', ['ocsp', '-no_nonce', '-issuer', s.files.issuer, '-cert', s.files.cert, '-reqout', f], dir);
  reqs.push(f);
}
const res: AbResult[][] = variants.map(() => []);
for (const [i, s] of services.entries()) await ab({ url: s.url, body: reqs[i] }, 2000, 16, dir, () => groupCpuMs(s.pgid));
for (let r = 0; r < 5; r++) for (const [i, s] of services.entries()) res[i]!.push(await ab({ url: s.url, body: reqs[i] }, 10000, 16, dir, () => groupCpuMs(s.pgid)));
for (const [i] of services.entries()) { const m = median(res[i]!); console.log(`OCSP_PROCESSES=${variants[i]}: median ${m.rps.toFixed(0)} req/s p99 ${m.p99} cpu ${m.cpuUsPerRequest.toFixed(0)} us/req; rounds ${res[i]!.map((x) => x.rps.toFixed(0)).join(', ')}`); }
await Promise.all(services.map((s) => s.stop()));
writeFileSync('/dev/null', '');
