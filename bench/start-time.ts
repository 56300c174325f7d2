// How long the server takes from process start to /ready answering 200 (npm run bench:start; not
// a test): the compiled build (`node dist/main.js`, what `npm start` and the image run once
// `npm run build` made it) against the sources through tsx (`npm start` without a build), tsx's
// transform cache warm and, as after an upgrade, disabled. One embedded PostgreSQL, migrated
// before timing, named by DATABASE_URL as in production; the build goes into a folder of its own
// beside dist/ so a developer's dist/ is untouched. Runs alternate between the variants so each
// sees the same machine load. Prints the medians and replaces `## Start time` of
// docs/benchmarks.md. BENCH_START_RUNS (default 9) runs per variant.

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { replaceDocsSection } from './docs-section.ts';
import { pickEntry } from '../scripts/entry-point.js';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 9);
const ROOT = path.resolve(import.meta.dirname, '..');
const TIMEOUT_MS = 120_000;

interface Variant {
  name: string;
  args: (outDir: string) => string[];
  env?: Record<string, string>;
}

const VARIANTS: Variant[] = [
  { name: 'compiled (`node dist/main.js`)', args: (outDir) => ['--max-semi-space-size=64', path.join(outDir, 'main.js')] },
  { name: 'sources through tsx, transform cache warm', args: () => ['--max-semi-space-size=64', '--import', 'tsx', 'src/main.ts'] },
  {
    name: 'sources through tsx, no transform cache (first start after a change)',
    args: () => ['--max-semi-space-size=64', '--import', 'tsx', 'src/main.ts'],
    env: { TSX_DISABLE_CACHE: '1' },
  },
];

/** CPU time (user + system, ms) a process has used so far, from /proc; NaN where it is missing. */
function cpuMsOf(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ 100
  } catch {
    return Number.NaN;
  }
}

interface Start { wallMs: number; cpuMs: number }

/**
 * Wall time from spawn to the first /ready 200, and the CPU the process used by then (which
 * hardly depends on what else the machine runs); the process is stopped afterwards.
 */
async function startOnce(variant: Variant, outDir: string, databaseUrl: string): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, variant.args(outDir), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn',
      ADMIN_TOKEN: randomBytes(24).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('base64url'), ...variant.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false);
      if (ok) return { wallMs: performance.now() - started, cpuMs: cpuMsOf(child.pid!) };
      if (child.exitCode !== null) throw new Error(`${variant.name} exited with ${child.exitCode}`);
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`${variant.name} not ready in ${TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-start-'));
  const outDir = mkdtempSync(path.join(ROOT, '.build-test-'));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  try {
    console.log('compiling into', path.relative(ROOT, outDir));
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT, stdio: 'inherit' });
    execFileSync(process.execPath, ['scripts/copy-migrations.js', outDir], { cwd: ROOT, stdio: 'inherit' });
    const admin = new pg.Client(server.url);
    await admin.connect();
    await admin.query('CREATE DATABASE jtrace_start');
    const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    await admin.end();
    const databaseUrl = Object.assign(new URL(server.url), { pathname: '/jtrace_start' }).toString();
    const pool = createPool({ connectionString: databaseUrl, max: 1, statementTimeoutMs: 0 });
    await migrate(pool);
    await pool.end();

    // One start of each, not counted: the file system cache and tsx's cache hold what later starts read.
    for (const variant of VARIANTS) await startOnce(variant, outDir, databaseUrl);
    const times = VARIANTS.map(() => [] as number[]);
    const cpu = VARIANTS.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, variant] of VARIANTS.entries()) {
        const start = await startOnce(variant, outDir, databaseUrl);
        times[i]!.push(start.wallMs);
        cpu[i]!.push(start.cpuMs);
      }
      console.log(`run ${run + 1}/${RUNS}: ${times.map((t, i) => `${ms(t.at(-1)!)} (cpu ${ms(cpu[i]!.at(-1)!)})`).join(', ')}`);
    }
    // What `npm start` adds before either entry: the check that dist/ is newer than src/.
    const pickStarted = performance.now();
    for (let i = 0; i < 20; i++) pickEntry('main');
    const pickMs = (performance.now() - pickStarted) / 20;

    const compiled = median(times[0]!);
    const compiledCpu = median(cpu[0]!);
    const rows = VARIANTS.map((variant, i) => {
      const m = median(times[i]!);
      const c = median(cpu[i]!);
      return `| ${variant.name} | ${ms(m)} (${ms(Math.min(...times[i]!))} to ${ms(Math.max(...times[i]!))}) | ${i === 0 ? '1.0' : (m / compiled).toFixed(1)}× | ${ms(c)} | ${i === 0 ? '1.0' : (c / compiledCpu).toFixed(1)}× |`;
    });
    const section = [
      '## Start time',
      '',
      `\`npm run bench:start\` (${new Date().toISOString().slice(0, 10)}; Node ${process.version}, ${os.cpus().length} cores shared with other work,`,
      `load average ${os.loadavg()[0]!.toFixed(1)} at the end; PostgreSQL ${version} embedded, migrated, named by DATABASE_URL).`,
      `From spawning the process to the first \`/ready\` answering 200 (polled every 5 ms), ${RUNS} runs per`,
      'variant alternating, after one uncounted start of each. Wall time depends on what else the machine',
      'runs; the CPU the process used until then (user + system, /proc) hardly does:',
      '',
      '| Entry | Wall time, median (fastest to slowest) | vs compiled | CPU until ready, median | vs compiled |',
      '|---|---|---|---|---|',
      ...rows,
      '',
      `\`npm start\` first checks that dist/ is newer than every source (scripts/entry-point.js): ${pickMs.toFixed(1)} ms.`,
      'The compiled server loads no TypeScript compiler and transforms nothing at start; tsx',
      'transforms every module on the first start after a change and reads its cache afterwards.',
    ].join('\n');
    console.log(`\n${section}\n`);
    replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), '## Start time', section);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  }
}

await main();
