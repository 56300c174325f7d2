// Reading a jtrace instance's metrics listener in the deployment scenarios.

import type { JtraceInstance } from './topology.ts';

/** The Prometheus text of one instance (its METRICS_PORT). */
export async function scrape(instance: JtraceInstance): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
  return response.text();
}

/** One series' value: the line of `name` whose labels include every given pair; undefined when absent. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const set = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => set.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return undefined;
}
