// The README's quick start, run as a reader pastes it: its shell steps name the local server and
// the key command, and its script (built against this package, as `npm run build:sdk` makes it)
// runs in plain Node against a real jtrace server and ends on the interface's address of the
// journey it made, which the API then reads back.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './readme.ts';
import { type LiveServer, getJson, startLiveServer } from './server.ts';

const README = new URL('../README.md', import.meta.url);
const SOURCE = fileURLToPath(new URL('../src/index.ts', import.meta.url));

function runNode(file: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    // Asynchronous: the server under test answers from this process.
    const child = spawn(process.execPath, [file], { cwd: path.dirname(file), env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('the Node README quick start', () => {
  let server: LiveServer;
  let dir: string;

  beforeAll(async () => {
    server = await startLiveServer();
    // What `npm run build:sdk` gives a reader, built aside so the package's own dist is untouched.
    dir = mkdtempSync(path.join(tmpdir(), 'jtrace-node-quickstart-'));
    const pkg = path.join(dir, 'node_modules', '@jtrace', 'node');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@jtrace/node', type: 'module', exports: './index.js' }));
    await build({ entryPoints: [SOURCE], outfile: path.join(pkg, 'index.js'), bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['@opentelemetry/api'], logLevel: 'warning' });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('names the local server, the key command and its JSON output', () => {
    const shell = codeBlocks(README, 'Quick start', 'sh').join('\n');
    expect(shell).toContain('npm start');
    expect(shell).toMatch(/npx jtrace key:create \S+ development \S+ --json/);
    expect(codeBlocks(README, 'Quick start', 'js')[0]).toContain("'http://127.0.0.1:8080'");
  });

  it('runs as written, sends its journey and prints the interface address of it', async () => {
    const [script] = codeBlocks(README, 'Quick start', 'js');
    expect(script).toBeDefined();
    const file = path.join(dir, 'quickstart.mjs');
    writeFileSync(file, script!);
    const { apiKey, projectId } = await server.seed('development');
    // JTRACE_ENDPOINT stands in for 127.0.0.1:8080: this server listens on a port of its own.
    const run = await runNode(file, { JTRACE_ENDPOINT: server.url, JTRACE_API_KEY: apiKey, JTRACE_PROJECT_ID: projectId });
    expect(run.code, run.err).toBe(0);
    expect(run.err).toBe('');
    const lines = run.out.trim().split('\n');
    expect(lines[0]).toBe('3 events sent');
    const address = new RegExp(`^${server.url}/ui/projects/${projectId}/journeys/(jrn_[0-9a-f-]{36})$`).exec(lines.at(-1)!);
    expect(address, run.out).not.toBeNull();
    const journey = await getJson(`${server.url}/v1/journeys/${address![1]}`, apiKey);
    expect(journey.status).toBe(200);
    expect(journey.body.data).toMatchObject({ label: 'Order 1001', status: 'completed', eventCount: 3, services: ['quickstart'] });
    // The password the README promises redacted never reached the server.
    const events = await getJson(`${server.url}/v1/journeys/${address![1]}/events`, apiKey);
    const received = await getJson(`${server.url}/v1/events/${events.body.data.items[0].id}`, apiKey);
    expect(received.body.data.inputPayload).toMatchObject({ id: 'ord_1001', password: '[REDACTED]' });
  }, 60_000);
});
