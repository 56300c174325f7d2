// Which notifications a rule's windows call for. Pure: the evaluation reads the counts and the
// rule's progress, this walks the windows, and the caller stores the result. Walking from the
// last final window with the state the rule had there gives the same notifications whether the
// dispatcher looked at every window as it happened or catches up on many at once.

export type RuleState = 'ok' | 'firing';

/** Tumbling windows from the epoch: every instance and every pass agree on where one starts. */
export function windowStart(atMs: number, minutes: number): number {
  const size = minutes * 60_000;
  return Math.floor(atMs / size) * size;
}

export interface WindowCount {
  count: number;
  journeys: string[];
}

export interface WalkInput {
  /** Start of the first window to walk (the rule's cursor), in epoch milliseconds. */
  from: number;
  /** Start of the window the clock is in: the last one walked. */
  current: number;
  sizeMs: number;
  threshold: number;
  /** The rule's state before `from`. */
  state: RuleState;
  /** Counts by window start; a window missing here had none. Holds the window before `from`. */
  counts: ReadonlyMap<number, WindowCount>;
  /** Windows ending at or before this have their final count. */
  settledEnd: number;
}

export interface PlannedNotification {
  notification: 'firing' | 'resolved';
  windowStart: number;
  count: number;
  journeys: string[];
  /** The window had ended and settled when counted: its count will not grow. */
  windowComplete: boolean;
}

export interface WalkResult {
  notifications: PlannedNotification[];
  /** The new cursor: the end of the last final window walked (never before `from`). */
  evaluatedUntil: number;
  /** The state at the new cursor. */
  evaluatedState: RuleState;
  /** The state after the current window. */
  state: RuleState;
}

/**
 * A window at the threshold fires; a firing rule resolves in the first window that, with the
 * window before it, stays under the threshold (so one quiet window after a burst is not enough).
 */
export function walkWindows(input: WalkInput): WalkResult {
  const notifications: PlannedNotification[] = [];
  const countOf = (start: number) => input.counts.get(start) ?? { count: 0, journeys: [] };
  let state = input.state;
  let evaluatedUntil = input.from;
  let evaluatedState = input.state;
  for (let start = input.from; start <= input.current; start += input.sizeMs) {
    const { count, journeys } = countOf(start);
    const windowComplete = start + input.sizeMs <= input.settledEnd;
    if (count >= input.threshold) {
      notifications.push({ notification: 'firing', windowStart: start, count, journeys, windowComplete });
      state = 'firing';
    } else if (state === 'firing' && countOf(start - input.sizeMs).count < input.threshold) {
      notifications.push({ notification: 'resolved', windowStart: start, count, journeys: [], windowComplete });
      state = 'ok';
    }
    if (windowComplete) {
      evaluatedUntil = start + input.sizeMs;
      evaluatedState = state;
    }
  }
  return { notifications, evaluatedUntil, evaluatedState, state };
}
