// Long synchronous work (a forensic walk over 10,000 steps, the decoding of a 4 MiB OTLP export)
// would stall every other request of the process, health checks included: such work awaits a
// pause between its units, which hands the event loop back once a slice of a few ms is used up.

/** How long work runs before it lets other work in. */
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
