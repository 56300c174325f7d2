import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOG_INTERVAL_MS, createReporter } from './diagnostics.ts';

afterEach(() => vi.restoreAllMocks());

describe('diagnostics', () => {
  it('logs at most one line per kind per interval, then says how many were not shown', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let now = 0;
    const report = createReporter(undefined, () => now);
    for (let i = 0; i < 50; i++) report({ kind: 'transport_error', message: 'down' });
    report({ kind: 'dropped', message: 'gone' });
    expect(warn).toHaveBeenCalledTimes(2);
    now = LOG_INTERVAL_MS;
    report({ kind: 'transport_error', message: 'down' });
    expect(warn).toHaveBeenLastCalledWith('[jtrace] transport_error: down (49 more like it not shown)');
  });

  it('gives a callback every diagnostic and survives a throwing one', () => {
    const seen: string[] = [];
    const report = createReporter((d) => {
      seen.push(d.kind);
      throw new Error('callback broke');
    });
    expect(() => {
      report({ kind: 'dropped', message: 'a' });
      report({ kind: 'dropped', message: 'b' });
    }).not.toThrow();
    expect(seen).toEqual(['dropped', 'dropped']);
  });
});
