// How long 1,600 unauthenticated requests for GET /v1/openapi.json take, 100 at a time, and how
// long /health waits meanwhile (docs/hostile-input.md, "Fixed documents"). The server, the load
// and the /health probe run in three processes, on loopback only: `npx tsx bench/openapi-document.ts`.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const REQUESTS = 1_600;
const CONCURRENCY = 100;
const [role, portText, encoding] = process.argv.slice(2);

function get(port: number, path: string, headers: Record<string, string>, agent: http.Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve(bytes));
    });
    request.on('error', reject);
  });
}

/** Runs this file in another process and resolves with the line it prints. */
function run(...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', () => resolve(out.trim()));
  });
}

if (role === 'load') {
  const port = Number(portText);
  const headers: Record<string, string> = encoding === 'gzip' ? { 'accept-encoding': 'gzip' } : {};
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const received = await get(port, '/v1/openapi.json', headers, agent);
        bytes += received;
      }
    }),
  );
  console.log(`${REQUESTS} requests (${encoding}) in ${(performance.now() - started).toFixed(0)} ms, ${(bytes / REQUESTS / 1024).toFixed(0)} KB each`);
  agent.destroy();
} else if (role === 'probe') {
  const port = Number(portText);
  const waits: number[] = [];
  process.on('message', () => {
    console.log(`/health: ${waits.length} probes, longest wait ${Math.max(...waits).toFixed(0)} ms`);
    process.exit(0);
  });
  for (;;) {
    const started = performance.now();
    await get(port, '/health', {}, false);
    waits.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
} else {
  const { buildDocumentApp } = await import('../scripts/openapi.ts');
  const app = await buildDocumentApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  for (const coding of ['identity', 'gzip']) {
    const probe = fork(fileURLToPath(import.meta.url), ['probe', String(port)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let probeOut = '';
    probe.stdout!.on('data', (chunk: Buffer) => (probeOut += chunk.toString()));
    const probed = new Promise((resolve) => probe.on('exit', resolve));
    const load = await run('load', String(port), coding);
    probe.send('stop');
    await probed;
    console.log(`${load}; ${probeOut.trim()}`);
  }
  await app.close();
}
