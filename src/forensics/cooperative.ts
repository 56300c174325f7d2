// Forensic walks over a long journey (10,000 steps of wide payloads) take seconds of CPU. Run in
// one go they would stall every other request of the process, health checks included, so the
// walks hand the event loop back every few milliseconds (src/runtime/work-slices.ts), and at
// most a few run at once (fair-queue.ts decides which).

export { WORK_SLICE_MS, WorkCancelled, workSlicer, type Pause } from '../runtime/work-slices.ts';
