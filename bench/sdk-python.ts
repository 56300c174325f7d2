// The Python SDK's capture cost, run by bench/sdk.ts after the Node figures (npm run bench:sdk):
// bench/sdk_python_capture.py in fresh interpreters, written to the `## Python SDK` section of
// docs/benchmarks.md next to the Node figure of the same run.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { findPython } from '../packages/python/test/python.ts';
import { replaceDocsSection } from './docs-section.ts';

const PROCESSES = 3;
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);

interface PythonRound {
  calls: number;
  warmupCalls: number;
  python: string;
  inputBytes: number;
  outputBytes: number;
  bareMedianUs: number;
  bareP99Us: number;
  wrappedMedianUs: number;
  wrappedP99Us: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** Returns the Python capture cost's median (µs), or null when no Python was found. */
export function benchPythonSdk(nodeCaptureMedianUs: number): number | null {
  const python = findPython();
  if (python === null) {
    console.log('Python SDK: no python3 (3.9 or later) found; its section of docs/benchmarks.md is left as it is.');
    return null;
  }
  const load = os.loadavg()[0] ?? 0;
  console.log(`Python SDK capture: ${PROCESSES} interpreters, each timing wrapped calls (1 KB in, 1 KB out) against the bare call ...`);
  const script = fileURLToPath(new URL('./sdk_python_capture.py', import.meta.url));
  const rounds: PythonRound[] = [];
  for (let round = 0; round < PROCESSES; round++) {
    const stdout = execFileSync(python, [script], { encoding: 'utf8' });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as PythonRound;
    rounds.push(result);
    console.log(`  interpreter ${round + 1}: capture cost median ${(result.wrappedMedianUs - result.bareMedianUs).toFixed(1)} µs`);
  }
  const costs = rounds.map((round) => round.wrappedMedianUs - round.bareMedianUs);
  const p99 = median(rounds.map((round) => round.wrappedP99Us - round.bareP99Us));
  const first = rounds[0] as PythonRound;
  const section = `## Python SDK

\`npm run bench:sdk\` (bench/sdk-python.ts, bench/sdk_python_capture.py), ${new Date().toISOString().slice(0, 10)}, Python ${first.python}, ${os.cpus().length} cores
(load average ${load.toFixed(1)} at the start: the machine is shared, so figures are pessimistic).

| Figure | Python (\`jtrace\`) | Node (\`@jtrace/node\`, same run) |
|---|---|---|
| Capture cost of a wrapped synchronous call, median (wrapped − bare), median of the processes | ${median(costs).toFixed(1)} µs | ${nodeCaptureMedianUs.toFixed(1)} µs |
| Capture cost, p99 (median of the processes) | ${p99.toFixed(1)} µs | see Node SDK |
| Bare call, median | ${median(rounds.map((round) => round.bareMedianUs)).toFixed(2)} µs | see Node SDK |

- In each of ${PROCESSES} fresh interpreters, ${first.calls.toLocaleString('en-US')} calls of \`journey.transform\` with the Node bench's
  ${first.inputBytes}-byte input and ${first.outputBytes}-byte output, each timed alone after ${first.warmupCalls.toLocaleString('en-US')} warm-up calls. The
  medians were ${costs.map((cost) => cost.toFixed(1)).join(', ')} µs.
- The work is the Node SDK's (id, JSON copy of both payloads, redaction with the server's rules written into the copy,
  fitting, serializing once, queueing) in interpreted Python, hence the larger figure. Sending is kept out: the
  endpoint refuses connections and the breaker stays open, so events only queue; the p99 includes the garbage
  collector and the sender thread taking the GIL.
`;
  replaceDocsSection(DOCS, '## Python SDK', section);
  console.log('Wrote the Python SDK section of docs/benchmarks.md');
  return median(costs);
}
