// The Go SDK's capture cost and allocations, run by bench/sdk.ts after the Node and Python figures
// (npm run bench:sdk): packages/go/bench_test.go through `go test -bench -benchmem` in fresh
// processes, written to the `## Go SDK` section of docs/benchmarks.md next to the figures of the
// same run.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { findGo, GO_PACKAGE, goEnv } from '../packages/go/test/go.ts';
import { replaceDocsSection } from './docs-section.ts';

const PROCESSES = 3;
const CALLS = 50_000;
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);

interface Line {
  nsPerOp: number;
  bytesPerOp: number;
  allocsPerOp: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

function parse(output: string): Record<string, Line> {
  const found: Record<string, Line> = {};
  for (const match of output.matchAll(/^Benchmark(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns\/op\s+(\d+) B\/op\s+(\d+) allocs\/op/gm)) {
    found[match[1] ?? ''] = { nsPerOp: Number(match[2]), bytesPerOp: Number(match[3]), allocsPerOp: Number(match[4]) };
  }
  return found;
}

export function benchGoSdk(nodeCaptureMedianUs: number, pythonCaptureMedianUs: number | null): void {
  const go = findGo();
  if (go === null) {
    console.log('Go SDK: no go binary found; its section of docs/benchmarks.md is left as it is.');
    return;
  }
  const load = os.loadavg()[0] ?? 0;
  console.log(`Go SDK capture: ${PROCESSES} processes of go test -bench, each ${CALLS} wrapped calls (1 KB in, 1 KB out) against the bare call ...`);
  const rounds: Array<Record<string, Line>> = [];
  for (let round = 0; round < PROCESSES; round++) {
    const output = execFileSync(go, ['test', '-run', '^$', '-bench', '^BenchmarkCapture', '-benchmem', '-benchtime', `${CALLS}x`, '-count', '1', '.'], {
      cwd: GO_PACKAGE, encoding: 'utf8', env: { ...process.env, ...goEnv() },
    });
    const lines = parse(output);
    rounds.push(lines);
    const cost = ((lines.CaptureStruct?.nsPerOp ?? NaN) - (lines.CaptureBare?.nsPerOp ?? NaN)) / 1000;
    console.log(`  process ${round + 1}: capture cost ${cost.toFixed(1)} µs (struct), ${lines.CaptureStruct?.allocsPerOp} allocations`);
  }
  const version = execFileSync(go, ['version'], { encoding: 'utf8' }).trim().split(' ')[2] ?? 'go';
  const cost = (name: string) => median(rounds.map((r) => ((r[name]?.nsPerOp ?? NaN) - (r.CaptureBare?.nsPerOp ?? NaN)) / 1000));
  const of = (name: string, field: keyof Line) => median(rounds.map((r) => r[name]?.[field] ?? NaN));
  const python = pythonCaptureMedianUs === null ? 'not measured' : `${pythonCaptureMedianUs.toFixed(1)} µs`;
  const section = `## Go SDK

\`npm run bench:sdk\` (bench/sdk-go.ts, packages/go/bench_test.go), ${new Date().toISOString().slice(0, 10)}, ${version}, ${os.cpus().length} cores
(load average ${load.toFixed(1)} at the start: the machine is shared, so figures are pessimistic).

| Figure | Go (struct) | Go (map) | Python (same run) | Node (same run) |
|---|---|---|---|---|
| Capture cost of a wrapped call (wrapped − bare), median of ${PROCESSES} processes | ${cost('CaptureStruct').toFixed(1)} µs | ${cost('CaptureMap').toFixed(1)} µs | ${python} | ${nodeCaptureMedianUs.toFixed(1)} µs |
| Allocations per wrapped call | ${of('CaptureStruct', 'allocsPerOp')} | ${of('CaptureMap', 'allocsPerOp')} | | |
| Bytes allocated per wrapped call | ${of('CaptureStruct', 'bytesPerOp').toLocaleString('en-US')} | ${of('CaptureMap', 'bytesPerOp').toLocaleString('en-US')} | | |
| Bare call | ${(of('CaptureBare', 'nsPerOp') / 1000).toFixed(3)} µs, ${of('CaptureBare', 'allocsPerOp')} allocations | | | |

- In each of ${PROCESSES} fresh \`go test -bench\` processes, ${CALLS.toLocaleString('en-US')} calls of \`jtrace.Transform\` with the Node and Python
  benches' 1 KB order in and out, once as Go structs with JSON tags (the usual host value, read through reflection) and
  once as \`map[string]any\` (keys sorted), against the bare function; \`-benchmem\` counts the allocations. The figure is
  a mean per call within each process (Go's benchmark), the median over the processes.
- The work is the other SDKs' (id, the ordered JSON copy of both payloads, redaction with the server's rules written
  into the copy, fitting, serializing once, queueing). Sending is kept out: the endpoint refuses connections and the
  breaker stays open, so events only queue.
`;
  replaceDocsSection(DOCS, '## Go SDK', section);
  console.log('Wrote the Go SDK section of docs/benchmarks.md');
}
