// CPU time of the processes a bench measures, read from /proc: a server
// process (every thread: what process.cpuUsage() reports inside it) and a
// PostgreSQL cluster (the postmaster, its backends, and the backends it has
// reaped). On a machine shared with other work, CPU per request is the figure
// that stays honest where requests per second do not.
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time of a process so far, ms: every thread's (/proc/<pid>/task/<tid>/schedstat, ns), as process.cpuUsage() would say inside it. */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

/**
 * CPU of the cluster so far, ms: the postmaster, its live children (the
 * backends) and the children it has reaped (/proc stat utime + stime, cutime +
 * cstime; clock ticks of 10 ms).
 */
export function clusterCpuMs(postmasterPid: number): number {
  const ticks = (pid: number, fields: number[]) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // after[0] is field 3 (state): field k is after[k - 3].
      return { ppid: Number(after[1]), sum: fields.reduce((sum, k) => sum + Number(after[k - 3]), 0) };
    } catch {
      return { ppid: -1, sum: 0 };
    }
  };
  let total = ticks(postmasterPid, [14, 15, 16, 17]).sum;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === postmasterPid) continue;
    const child = ticks(Number(entry), [14, 15]);
    if (child.ppid === postmasterPid) total += child.sum;
  }
  return total * 10;
}


/** The postmaster's pid of a cluster's data directory. */
export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
}
