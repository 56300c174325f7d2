/**
 * receivedAt is read once per event as its processing starts and kept to the microsecond
 * (event protocol 3.3): wall-clock start plus a monotonic offset gives µs resolution.
 */
const startWallUs = BigInt(Date.now()) * 1000n;
const startMonotonic = process.hrtime.bigint();

export type MicrosClock = () => number;

export const systemMicros: MicrosClock = () =>
  Number(startWallUs + (process.hrtime.bigint() - startMonotonic) / 1000n);

/** A clock in ms (tests) turned into a strictly increasing µs clock. */
export function microsFromMillis(nowMs: () => number): MicrosClock {
  let last = 0;
  return () => {
    const candidate = nowMs() * 1000;
    last = candidate > last ? candidate : last + 1;
    return last;
  };
}
