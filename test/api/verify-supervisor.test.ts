/**
 * The API's verification pools share one supervisor process (api/media/verify-supervisor-link.ts,
 * verify-supervisor.ts): each pool keeps members of its own under it, with its own settings; closing one pool ends
 * its members only; closing the last ends the supervisor; a supervisor that died is replaced at the next task.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { VerifyPool, type PoolName } from '../../api/media/verify-pool.js';
import { pngBomb } from '../support/bomb-images.js';
import { alive, descendantPids } from '../support/descendants.js';

const supervisors = () => descendantPids('api/media/verify-supervisor.');
const members = () => descendantPids('api/media/verify-process.');

/** The parent of process `pid` (/proc/PID/stat: the field after the state, past the command's parentheses). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Waits (polling) until `holds`; fails, naming `what`, if that takes longer than a generous bound. */
async function until(holds: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('verification pools: one supervisor process for both', function () {
  this.timeout(120_000);
  let dir: string;
  let pools: VerifyPool[] = [];

  const pool = (name: PoolName, size: number, recycleBytes = 2 ** 30, extra: { idleMs?: number; onDemand?: boolean } = {}) => {
    const made = new VerifyPool({ name, size, queueLimit: 4, recycleBytes, ...extra });
    pools.push(made);
    return made;
  };
  const check = (on: VerifyPool) => on.run('check_image', { filePath: path.join(dir, 'small.png'), mimeType: 'image/png', maxPixels: 200_000_000 });

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'one-supervisor-'));
    writeFileSync(path.join(dir, 'small.png'), pngBomb(400, 300));
  });
  afterEach(async () => {
    await Promise.all(pools.map((p) => p.close()));
    pools = [];
    expect(descendantPids('api/media/verify-')).to.deep.equal([]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('forks no supervisor until a pool is started or given its first task (npm start: on demand)', async () => {
    const uploads = pool('uploads', 1);
    pool('verify', 1);
    expect(supervisors()).to.deep.equal([]);
    expect(await check(uploads)).to.equal(null);
    expect(supervisors()).to.have.length(1);
  });

  it('on demand, ends the supervisor once every pool is idle with no members, and starts another for the next task; a pool that is not on demand keeps it', async () => {
    const uploads = pool('uploads', 1, 2 ** 30, { idleMs: 300, onDemand: true });
    const verify = pool('verify', 1, 2 ** 30, { idleMs: 300, onDemand: true });
    expect(await Promise.all([check(uploads), check(verify)])).to.deep.equal([null, null]);
    const [first] = supervisors();
    await until(() => supervisors().length === 0, 'the idle supervisor to end');
    expect(members()).to.deep.equal([]);
    expect(await check(verify)).to.equal(null);
    const [second] = supervisors();
    expect(second).to.be.a('number').and.not.equal(first);
    await until(() => supervisors().length === 0, 'the second idle supervisor to end');
    // A pool that keeps its supervisor (the web role's) holds it for every pool.
    const kept = pool('uploads', 1, 2 ** 30, { idleMs: 300 });
    expect(await Promise.all([check(kept), check(uploads)])).to.deep.equal([null, null]);
    await until(() => members().length === 0, 'the members to end');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(supervisors()).to.have.length(1);
  });

  it('runs both pools over one supervisor, each with members of its own; closing one leaves the other working; closing both ends it', async () => {
    const verify = pool('verify', 2);
    const uploads = pool('uploads', 1);
    await verify.start();
    await uploads.start();
    expect(supervisors()).to.have.length(1);
    const [supervisor] = supervisors();
    expect(await Promise.all([check(verify), check(verify), check(uploads)])).to.deep.equal([null, null, null]);
    const verifyMembers = verify.pids();
    const [uploadsMember] = uploads.pids();
    expect(verifyMembers).to.have.length(2).and.not.include(uploadsMember);
    expect(members()).to.deep.equal([...verifyMembers, uploadsMember!].sort((a, b) => a - b));
    expect(members().map(parentOf)).to.deep.equal([supervisor, supervisor, supervisor]);

    await uploads.close();
    expect([uploads.pids(), alive(uploadsMember!)]).to.deep.equal([[], false]);
    const refused = await check(uploads).then(
      () => 'answered',
      (err: { code?: string }) => err.code,
    );
    expect(refused).to.equal('verification_busy');
    // The other pool's supervisor and members are untouched, and still at work.
    expect(supervisors()).to.deep.equal([supervisor]);
    expect(await check(verify)).to.equal(null);
    expect(verify.pids()).to.have.members(verifyMembers);

    await verify.close();
    expect([supervisors(), members(), alive(supervisor!)]).to.deep.equal([[], [], false]);
  });

  it("keeps each pool's own settings: only the pool whose members are past its recycling bound loses them", async () => {
    // 64 MiB: any member with sharp and the C2PA WASM loaded is past it.
    const recycling = pool('verify', 1, 64 * 1024 * 1024);
    const keeping = pool('uploads', 1);
    expect(await Promise.all([check(recycling), check(keeping)])).to.deep.equal([null, null]);
    const [kept] = keeping.pids();
    await until(() => recycling.pids().length === 0 && members().length === 1, "the recycling pool's member ended");
    expect(members()).to.deep.equal([kept]);
    expect(supervisors()).to.have.length(1);
  });

  it('a supervisor that died is replaced by the next task, one again for both pools', async () => {
    const verify = pool('verify', 1);
    const uploads = pool('uploads', 1);
    expect(await Promise.all([check(verify), check(uploads)])).to.deep.equal([null, null]);
    const [first] = supervisors();
    process.kill(first!, 'SIGKILL');
    await until(() => !alive(first!) && verify.pids().length === 0 && uploads.pids().length === 0, 'the pools told their supervisor ended');
    expect(await Promise.all([check(uploads), check(verify)])).to.deep.equal([null, null]);
    expect(supervisors()).to.have.length(1).and.not.include(first);
    expect(members().map(parentOf)).to.deep.equal(supervisors().concat(supervisors()));
  });
});
