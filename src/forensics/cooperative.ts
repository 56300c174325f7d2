// Forensic walks over a long journey (10,000 steps of wide payloads) take seconds of CPU. Run in
// one go they would stall every other request of the process, health checks included, so the
// walks hand the event loop back every few milliseconds, and at most a few run at once
// (fair-queue.ts decides which).

/** How long a walk runs before it lets other work in. */
export const WORK_SLICE_MS = 10;

export type Pause = () => Promise<void>;

/** The client went away: the error handler logs it at debug level and nothing is answered. */
export class WorkCancelled extends Error {
  readonly code = 'ECONNABORTED';
  constructor() {
    super('the client closed the connection');
    this.name = 'WorkCancelled';
  }
}

/**
 * A pause to await between units of work: it yields to the event loop once the slice is used
 * up, and throws WorkCancelled once `signal` is aborted (the client closed the connection).
 */
export function workSlicer(sliceMs = WORK_SLICE_MS, signal?: AbortSignal): Pause {
  let sliceStart = performance.now();
  return async () => {
    if (signal?.aborted) throw new WorkCancelled();
    if (performance.now() - sliceStart < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
}
