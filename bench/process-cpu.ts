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

export function sampleCpu(postmaster: number | null): CpuSample {
  const usage = process.cpuUsage();
  const serverMs = (usage.user + usage.system) / 1000;
  if (postmaster === null) return { serverMs, postgresMs: null };
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const stat = statOf(pid);
    if (stat !== null && (stat.ppid === postmaster || Number(pid) === postmaster)) ticks += stat.ticks;
  }
  return { serverMs, postgresMs: (ticks * 1000) / TICKS_PER_SECOND };
}
