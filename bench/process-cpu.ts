// CPU time of the benchmark's own server process and of its PostgreSQL (the postmaster's
// children: backends, WAL writer, checkpointer), read from /proc on Linux: where an event's
// CPU goes, independent of what else runs on the machine. Null where /proc is missing.

import { readdirSync, readFileSync } from 'node:fs';
import type { Pool } from '../src/db/pool.ts';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuSample { serverMs: number; postgresMs: number | null }

function statOf(pid: string): { ppid: number; ticks: number } | null {
  try {
    // Fields after the command name (in parentheses, which may hold spaces): state ppid ... utime stime.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

export async function postmasterPid(pool: Pool): Promise<number | null> {
  const backend = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return statOf(String(backend))?.ppid ?? null;
}

/** Ticks of the postmaster and each of its children, by pid. */
function postgresTicks(postmaster: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const stat = statOf(pid);
    if (stat !== null && (stat.ppid === postmaster || Number(pid) === postmaster)) ticks.set(Number(pid), stat.ticks);
  }
  return ticks;
}

/**
 * Counts CPU from now until stop(). PostgreSQL's processes are read every 200 ms and their
 * growth summed per pid: a backend that exits meanwhile (the pool closes idle connections)
 * keeps what it used up to its last reading, and one born meanwhile counts from birth.
 */
export function startCpuCount(postmaster: number | null): { stop(): CpuSample } {
  const usage = process.cpuUsage();
  const last = postmaster === null ? null : postgresTicks(postmaster);
  let postgresTicksUsed = 0;
  const read = () => {
    if (postmaster === null || last === null) return;
    for (const [pid, ticks] of postgresTicks(postmaster)) {
      postgresTicksUsed += ticks - (last.get(pid) ?? 0);
      last.set(pid, ticks);
    }
  };
  const timer = setInterval(read, 200);
  return {
    stop() {
      clearInterval(timer);
      read();
      const used = process.cpuUsage(usage);
      return { serverMs: (used.user + used.system) / 1000, postgresMs: postmaster === null ? null : (postgresTicksUsed * 1000) / TICKS_PER_SECOND };
    },
  };
}
