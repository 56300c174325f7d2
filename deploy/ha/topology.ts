// The tested production topology on one machine (docs/deployment.md): one etcd, three PostgreSQL
// 15 nodes managed by Patroni with synchronous replication, HAProxy in front of them (a primary
// port and a replica port chosen by Patroni's REST checks) and in front of the jtrace instances,
// two jtrace instances with `api,ingest` and one with `worker`. Everything comes from Debian's
// packages (deploy/ha/install.sh), runs under one temporary folder on free loopback ports, and is
// stopped and removed by stop(). The configuration files are deploy/ha/patroni.yml and
// haproxy.cfg with their ${...} values filled in.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../../test/helpers/free-port.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPOSITORY = path.resolve(HERE, '../..');
export const PG_BIN = '/usr/lib/postgresql/15/bin';
const SUPERUSER_PASSWORD = 'ha-superuser-secret';
const APP_ROLE = 'jtrace_app';
const APP_PASSWORD = 'ha-app-secret';
export const ADMIN_TOKEN = 'ha-TH5VbmIlcLljuUaIizuv6lgIrhauW6NhkWox0d9gDHG';
export const ENCRYPTION_KEY = '5acd3086f7f6c85ad8f0f1bd8160b8f731a34f03ce2d3b4fe301852ada17a043';

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  config: string;
  process: ChildProcess | null;
}

export interface JtraceInstance {
  roles: string;
  port: number;
  /** Its metrics listener (METRICS_PORT). */
  metricsPort: number;
  process: ChildProcess | null;
}

export interface Topology {
  dir: string;
  nodes: PatroniNode[];
  instances: JtraceInstance[];
  /** The app role's URL through HAProxy's primary port. */
  primaryUrl: string;
  /** The app role's URL through PgBouncer in session mode, in front of HAProxy's primary port: the instances' DATABASE_URL. */
  bouncerUrl: string;
  /** The same PgBouncer's database entries in transaction and statement mode, which jtrace refuses. */
  bouncerUrls: { transaction: string; statement: string };
  /** PgBouncer's console database (SHOW STATS, SHOW POOLS), as the app role. */
  bouncerConsoleUrl: string;
  replicaUrl: string;
  superuserPrimaryUrl: string;
  /** jtrace through HAProxy. */
  jtraceUrl: string;
  /** The node whose REST API answers 200 on /primary, or null. */
  leader(): Promise<PatroniNode | null>;
  /** kill -9 of the node's Patroni and its postmaster, as when its machine dies. */
  killNode(node: PatroniNode): void;
  startNode(node: PatroniNode): void;
  /** `patronictl switchover` to the candidate, as an operator plans one. */
  switchover(candidate: PatroniNode): void;
  /**
   * `patronictl pause` / `resume`: Patroni's maintenance mode. Outside it Patroni resumes a
   * standby's paused WAL replay within a loop (it takes a pause for a parameter problem).
   */
  maintenance(on: boolean): void;
  /** The cluster as Patroni reports it: member name to role and state. */
  members(): Promise<Array<{ name: string; role: string; state: string }>>;
  startInstance(instance: JtraceInstance): Promise<void>;
  /** One more jtrace instance on the same database (not behind HAProxy), started. */
  addInstance(roles: string, env?: Record<string, string>): Promise<JtraceInstance>;
  /** A superuser URL of one node, bypassing HAProxy (to pause a replica's replay, say). */
  nodeUrl(node: PatroniNode): string;
  stop(): Promise<void>;
}

/** The OS user PostgreSQL runs as: root may not, so root hands the processes to `postgres`. */
const asPostgres = process.getuid?.() === 0;

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_whole, name: string) => {
    if (!(name in values)) throw new Error(`no value for \${${name}}`);
    return String(values[name]);
  });
}

function spawnLogged(command: string, args: string[], log: string, options: { env?: NodeJS.ProcessEnv; cwd?: string; postgres?: boolean } = {}): ChildProcess {
  const [file, argv] = options.postgres && asPostgres
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args]]
    : [command, args];
  const out = createWriteStream(log, { flags: 'a' });
  const child = spawn(file, argv, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  // Two sources share the log: neither may end it for the other.
  child.stdout!.pipe(out, { end: false });
  child.stderr!.pipe(out, { end: false });
  child.once('close', () => out.end());
  return child;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(what: string, read: () => Promise<T | null | false>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => null);
    if (value !== null && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

async function status(url: string, method = 'GET'): Promise<number> {
  const response = await fetch(url, { method, signal: AbortSignal.timeout(2_000) });
  await response.arrayBuffer();
  return response.status;
}

export async function startTopology(options: { instances?: Array<{ roles: string }>; env?: Record<string, string> } = {}): Promise<Topology> {
  const dir = mkdtempSync(path.join(tmpdir(), 'jtrace-ha-'));
  if (asPostgres) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const children: ChildProcess[] = [];
  const etcdClient = await freePort();
  const etcdPeer = await freePort();
  children.push(spawnLogged('etcd', [
    '--name', 'etcd1', '--data-dir', path.join(dir, 'etcd'),
    '--listen-client-urls', `http://127.0.0.1:${etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${etcdClient}`,
    '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`,
    '--initial-cluster', `etcd1=http://127.0.0.1:${etcdPeer}`,
  ], path.join(dir, 'etcd.log'), { postgres: true }));
  await waitFor('etcd', async () => (await status(`http://127.0.0.1:${etcdClient}/health`)) === 200, 30_000);

  const template = readFileSync(path.join(HERE, 'patroni.yml'), 'utf8');
  const nodes: PatroniNode[] = [];
  for (const n of [1, 2, 3]) {
    const node: PatroniNode = {
      name: `node${n}`, pgPort: await freePort(), restPort: await freePort(),
      dataDir: path.join(dir, `data${n}`), config: path.join(dir, `patroni-${n}.yml`), process: null,
    };
    writeFileSync(node.config, fill(template, {
      SCOPE: 'jtrace', NAME: node.name, REST_PORT: node.restPort, ETCD_HOSTS: `127.0.0.1:${etcdClient}`,
      REPLICATION_USER: 'replicator', REPLICATION_PASSWORD: 'ha-replication-secret', SUPERUSER_PASSWORD,
      PG_PORT: node.pgPort, DATA_DIR: node.dataDir, PG_BIN, PGPASS: path.join(dir, `pgpass${n}`), SOCKET_DIR: dir,
    }));
    nodes.push(node);
  }
  const patroniEnv = { ...process.env, HOME: dir };
  const patronictl = (node: PatroniNode, args: string[]) => {
    const argv = ['-c', node.config, ...args];
    const result = asPostgres
      ? spawnSync('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', 'patronictl', ...argv], { encoding: 'utf8', env: patroniEnv })
      : spawnSync('patronictl', argv, { encoding: 'utf8', env: patroniEnv });
    if (result.status !== 0) throw new Error(`patronictl ${args[0]} failed: ${result.stderr}${result.stdout}`);
  };
  const startNode = (node: PatroniNode) => {
    node.process = spawnLogged('patroni', [node.config], path.join(dir, `${node.name}.log`), { env: patroniEnv, postgres: true });
  };
  for (const node of nodes) startNode(node);

  const ports = { primary: await freePort(), replica: await freePort(), jtrace: await freePort() };
  const instances: JtraceInstance[] = [];
  for (const spec of options.instances ?? [{ roles: 'api,ingest' }, { roles: 'api,ingest' }, { roles: 'worker' }]) {
    instances.push({ roles: spec.roles, port: await freePort(), metricsPort: await freePort(), process: null });
  }
  const server = (prefix: string, port: number, check: number | null, i: number) => `  server ${prefix}${i + 1} 127.0.0.1:${port}${check === null ? ' check' : ` check port ${check}`}`;
  const haproxyConfig = path.join(dir, 'haproxy.cfg');
  writeFileSync(haproxyConfig, fill(readFileSync(path.join(HERE, 'haproxy.cfg'), 'utf8'), {
    PRIMARY_PORT: ports.primary, REPLICA_PORT: ports.replica, JTRACE_PORT: ports.jtrace,
    PRIMARY_SERVERS: nodes.map((node, i) => server('pg', node.pgPort, node.restPort, i)).join('\n'),
    REPLICA_SERVERS: nodes.map((node, i) => server('pg', node.pgPort, node.restPort, i)).join('\n'),
    JTRACE_SERVERS: instances.filter((instance) => instance.roles !== 'worker').map((instance, i) => server('jtrace', instance.port, null, i)).join('\n'),
  }));
  children.push(spawnLogged('haproxy', ['-f', haproxyConfig, '-db'], path.join(dir, 'haproxy.log')));

  // PgBouncer in front of HAProxy's primary port; it may not run as root.
  const bouncerPort = await freePort();
  const bouncerConfig = path.join(dir, 'pgbouncer.ini');
  writeFileSync(bouncerConfig, fill(readFileSync(path.join(HERE, 'pgbouncer.ini'), 'utf8'), {
    PRIMARY_PORT: ports.primary, BOUNCER_PORT: bouncerPort, DIR: dir, APP_ROLE,
  }));
  writeFileSync(path.join(dir, 'pgbouncer-users.txt'), `"${APP_ROLE}" "${APP_PASSWORD}"\n`, { mode: 0o644 });
  children.push(spawnLogged('pgbouncer', [bouncerConfig], path.join(dir, 'pgbouncer.log'), { postgres: true }));

  const leader = async (): Promise<PatroniNode | null> => {
    for (const node of nodes) {
      if ((await status(`http://127.0.0.1:${node.restPort}/primary`, 'OPTIONS').catch(() => 0)) === 200) return node;
    }
    return null;
  };
  const superuserPrimaryUrl = `postgres://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${ports.primary}/postgres`;
  const primaryUrl = `postgres://${APP_ROLE}:${APP_PASSWORD}@127.0.0.1:${ports.primary}/jtrace`;
  const replicaUrl = `postgres://${APP_ROLE}:${APP_PASSWORD}@127.0.0.1:${ports.replica}/jtrace`;
  const bouncer = (database: string) => `postgres://${APP_ROLE}:${APP_PASSWORD}@127.0.0.1:${bouncerPort}/${database}`;

  const extraEnv = new Map<JtraceInstance, Record<string, string>>();
  const startInstance = async (instance: JtraceInstance) => {
    instance.process = spawnLogged(process.execPath, ['--import', 'tsx', 'src/main.ts'], path.join(dir, `jtrace-${instance.port}.log`), {
      cwd: REPOSITORY,
      env: {
        PATH: process.env.PATH ?? '', DATABASE_URL: bouncer('jtrace'), ADMIN_TOKEN, ENCRYPTION_KEY, HOST: '127.0.0.1',
        PORT: String(instance.port), LOG_LEVEL: 'warn', JTRACE_ROLES: instance.roles, METRICS_PORT: String(instance.metricsPort),
        // Stale-tolerant reads go to a streaming standby through HAProxy's replica port.
        DATABASE_READ_URL: replicaUrl, ...options.env, ...extraEnv.get(instance),
      },
    });
    await waitFor(`jtrace on ${instance.port}`, async () => (await status(`http://127.0.0.1:${instance.port}/health`)) === 200, 60_000);
  };

  const topology: Topology = {
    dir, nodes, instances, primaryUrl, replicaUrl, superuserPrimaryUrl,
    bouncerUrl: bouncer('jtrace'), bouncerUrls: { transaction: bouncer('jtrace_transaction'), statement: bouncer('jtrace_statement') },
    bouncerConsoleUrl: bouncer('pgbouncer'), jtraceUrl: `http://127.0.0.1:${ports.jtrace}`,
    leader,
    killNode(node) {
      const postmaster = postmasterPid(node);
      node.process?.kill('SIGKILL');
      if (postmaster !== null) {
        try {
          process.kill(postmaster, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      node.process = null;
    },
    startNode,
    switchover(candidate) {
      const current = nodes.find((node) => node.name !== candidate.name && node.process !== null)!;
      patronictl(current, ['switchover', '--candidate', candidate.name, '--force']);
    },
    maintenance(on) {
      patronictl(nodes.find((node) => node.process !== null)!, [on ? 'pause' : 'resume', '--wait']);
    },
    async members() {
      for (const node of nodes) {
        try {
          const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(2_000) });
          return ((await response.json()) as { members: Array<{ name: string; role: string; state: string }> }).members;
        } catch {
          // That node is down: ask the next.
        }
      }
      return [];
    },
    startInstance,
    async addInstance(roles, env = {}) {
      const instance: JtraceInstance = { roles, port: await freePort(), metricsPort: await freePort(), process: null };
      instances.push(instance);
      extraEnv.set(instance, env);
      await startInstance(instance);
      return instance;
    },
    nodeUrl: (node) => `postgres://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${node.pgPort}/jtrace`,
    async stop() {
      for (const instance of instances) instance.process?.kill('SIGKILL');
      for (const node of nodes) node.process?.kill('SIGTERM');
      await sleep(2_000);
      for (const child of children) child.kill('SIGKILL');
      for (const node of nodes) node.process?.kill('SIGKILL');
      // Postmasters outlive a killed Patroni: every process started under the folder goes.
      spawnSync('pkill', ['-9', '-f', dir]);
      await sleep(500);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Synchronous mode is ready once a leader and a synchronous standby are named.
    await waitFor('a leader and a synchronous standby', async () => {
      const response = await fetch(`http://127.0.0.1:${nodes[0]!.restPort}/cluster`, { signal: AbortSignal.timeout(2_000) });
      const cluster = (await response.json()) as { members: Array<{ role: string; state: string }> };
      const roles = cluster.members.filter((m) => m.state === 'running' || m.state === 'streaming').map((m) => m.role);
      return roles.includes('leader') && roles.includes('sync_standby');
    }, 120_000);
    await createDatabase(superuserPrimaryUrl);
    await runMigrations(primaryUrl, dir);
    for (const instance of instances) await startInstance(instance);
    await waitFor('HAProxy to jtrace', async () => (await status(`${topology.jtraceUrl}/health`)) === 200, 30_000);
  } catch (error) {
    await topology.stop();
    throw error;
  }
  return topology;
}

function postmasterPid(node: PatroniNode): number | null {
  const file = path.join(node.dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** jtrace's database and its owner, a non-superuser (docs/operations.md, "The application role"). */
async function createDatabase(superuserUrl: string): Promise<void> {
  await waitFor('the primary through HAProxy', async () => {
    const client = new pg.Client(superuserUrl);
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD '${APP_PASSWORD}'`);
      await client.query(`CREATE DATABASE jtrace OWNER ${APP_ROLE}`);
      return true;
    } finally {
      await client.end();
    }
  }, 30_000);
}

/** `jtrace migrate`, as a deploy runs it before the instances start. */
async function runMigrations(url: string, dir: string): Promise<void> {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], {
    cwd: REPOSITORY, env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, ENCRYPTION_KEY, ADMIN_TOKEN }, encoding: 'utf8',
  });
  writeFileSync(path.join(dir, 'migrate.log'), `${result.stdout}\n${result.stderr}`);
  if (result.status !== 0) throw new Error(`jtrace migrate failed: ${result.stderr}`);
}

function uidOf(user: string): number {
  return Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
}

function gidOf(user: string): number {
  return Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
}
