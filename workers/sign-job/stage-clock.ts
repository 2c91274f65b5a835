/** Wall and CPU milliseconds of each stage of a job, each stage ending where `lap` is called. */
export function stageClock() {
  const ms: Record<string, number> = {};
  const cpuMs: Record<string, number> = {};
  let wallAt = performance.now();
  let cpuAt = process.cpuUsage();
  return {
    ms,
    cpuMs,
    lap(stage: string): void {
      const cpu = process.cpuUsage(cpuAt);
      const now = performance.now();
      ms[stage] = Math.round(now - wallAt);
      cpuMs[stage] = Math.round((cpu.user + cpu.system) / 1000);
      wallAt = now;
      cpuAt = process.cpuUsage();
    },
  };
}

export type StageClock = ReturnType<typeof stageClock>;
