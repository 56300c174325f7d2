// Forensic walks over a long journey (10,000 steps of wide payloads) take seconds of CPU. Run in
// one go they would stall every other request of the process, health checks included, so the
// walks hand the event loop back every few milliseconds, and at most a few run at once.

/** How long a walk runs before it lets other work in. */
export const WORK_SLICE_MS = 10;
/** Forensic reads (payload read and walk) running at once per process; others wait their turn. */
export const MAX_CONCURRENT_WALKS = 2;

export type Pause = () => Promise<void>;

/** A pause to await between units of work: it yields to the event loop once the slice is used up. */
export function workSlicer(sliceMs = WORK_SLICE_MS): Pause {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
}

/** Runs at most `limit` tasks at once; later ones wait, first come first served. */
export function createGate(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = waiting.shift();
      if (next !== undefined) next();
      else running--;
    }
  };
}
