// Diagnostics: what the recorder wants the host to know (configuration errors, refusals,
// transport errors, drops, the breaker opening). A host callback gets every one; without one
// they go to console.warn, at most one line per kind per interval, so a dead server cannot
// flood the host's logs.
import type { Diagnostic, DiagnosticKind } from './types.ts';

export const LOG_INTERVAL_MS = 60_000;

export type Reporter = (diagnostic: Diagnostic) => void;

export function createReporter(callback: ((diagnostic: Diagnostic) => void) | undefined, now: () => number = Date.now): Reporter {
  if (callback !== undefined) {
    return (diagnostic) => {
      try {
        callback(diagnostic);
      } catch {
        // A throwing callback must not reach the host's code path that recorded the step.
      }
    };
  }
  const lastLogged = new Map<DiagnosticKind, number>();
  const suppressed = new Map<DiagnosticKind, number>();
  return (diagnostic) => {
    const at = now();
    const last = lastLogged.get(diagnostic.kind);
    if (last !== undefined && at - last < LOG_INTERVAL_MS) {
      suppressed.set(diagnostic.kind, (suppressed.get(diagnostic.kind) ?? 0) + 1);
      return;
    }
    lastLogged.set(diagnostic.kind, at);
    const skipped = suppressed.get(diagnostic.kind) ?? 0;
    suppressed.delete(diagnostic.kind);
    const tail = skipped > 0 ? ` (${skipped} more like it not shown)` : '';
    try {
      console.warn(`[jtrace] ${diagnostic.kind}: ${diagnostic.message}${tail}`);
    } catch {
      // console itself failing is not the host's problem either.
    }
  };
}
