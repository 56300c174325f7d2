// A journey handle: wrappers around the host's own functions and explicit steps. Nothing here
// throws into the host or changes what the host's function returns: the SDK's own work runs in
// try/catch, and a wrapped function's value or exact error object is handed back untouched.
import { UNCAPTURABLE } from './capture.ts';
import type { Aliases, Entity, FinishOptions, JourneyContext, Operation, RecordFields, StepOptions, WrapOptions } from './types.ts';

/** What a journey needs from its recorder. */
export interface JourneySink {
  /** Builds and queues one event; returns its id, or undefined when nothing was queued. */
  record(journey: Journey, fields: RecordFields): string | undefined;
}

export interface JourneyInit {
  journeyId: string;
  entity: Entity;
  label?: string | undefined;
  aliases?: Aliases | undefined;
  displayableAliases?: string[] | undefined;
  parentEventId?: string | undefined;
  peerPropagation?: boolean | undefined;
}

/** The error a result judged a failure by `isFailure` is recorded with. */
export const RESULT_FAILURE_TYPE = 'ResultFailure';

export type Wrapped<I, O> = (input: I) => O;

/**
 * What the host's function returned: a native promise (awaited for the output), another
 * thenable (left alone), or a plain value. Reading the value may throw (a Proxy, a `then`
 * getter): then it counts as a plain value, and capture marks what it cannot read.
 */
function resultKind(value: unknown): 'promise' | 'thenable' | 'value' {
  try {
    if (value instanceof Promise) return 'promise';
    if ((typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function') return 'thenable';
  } catch {
    // Unreadable: a plain value.
  }
  return 'value';
}

export class Journey {
  readonly journeyId: string;
  readonly entity: Entity;
  /** The recorder's `peerPropagation`, read by the inject helpers. */
  readonly peerPropagation: boolean;
  private pendingLabel: string | undefined;
  private pendingAliases: Aliases | undefined;
  private pendingDisplayable: string[] | undefined;
  private lastEventId: string | undefined;

  constructor(
    private readonly sink: JourneySink | null,
    init: JourneyInit,
  ) {
    this.journeyId = init.journeyId;
    this.entity = { type: init.entity.type, id: init.entity.id };
    this.pendingLabel = init.label;
    this.pendingAliases = init.aliases;
    this.pendingDisplayable = init.displayableAliases;
    this.lastEventId = init.parentEventId;
    this.peerPropagation = init.peerPropagation === true;
  }

  /** What propagation carries to the next service (never aliases). */
  context(): JourneyContext & { entity: Entity } {
    return { journeyId: this.journeyId, entity: { ...this.entity }, ...(this.lastEventId ? { parentEventId: this.lastEventId } : {}) };
  }

  /** The label sent on the next event (4.4): public display text, no personal data. */
  label(text: string): void {
    // A label that is not a string is a host bug: it is left off rather than spoiling the event.
    this.pendingLabel = typeof text === 'string' ? text : undefined;
  }

  /** Consumed by the recorder when it builds the next event. */
  takeLabel(): string | undefined {
    const label = this.pendingLabel;
    this.pendingLabel = undefined;
    return label;
  }

  /** Records any of the 11 operations with explicit fields; returns the event id. */
  record(fields: RecordFields): string | undefined {
    if (this.sink === null) return undefined;
    try {
      let merged = fields;
      if (this.pendingAliases !== undefined && fields.aliases === undefined) {
        merged = { ...fields, aliases: this.pendingAliases, ...(this.pendingDisplayable ? { displayableAliases: this.pendingDisplayable } : {}) };
        this.pendingAliases = undefined;
        this.pendingDisplayable = undefined;
      }
      if (merged.parentEventId === undefined && this.lastEventId !== undefined) merged = { ...merged, parentEventId: this.lastEventId };
      const id = this.sink.record(this, merged);
      if (id !== undefined) this.lastEventId = id;
      return id;
    } catch {
      return undefined;
    }
  }

  /** An `identified` step carrying aliases; `displayable` names the types that may be shown in full. */
  identify(aliases: Aliases, options?: { displayable?: string[] } | null): string | undefined {
    return this.recordBuilt(() => {
      const displayable = options?.displayable;
      return { operation: 'identified', name: 'identify', aliases, ...(Array.isArray(displayable) ? { displayableAliases: displayable } : {}) };
    });
  }

  /** A terminal failure of a step (`failed`), e.g. a move to a dead-letter queue. */
  fail(name: string, error: unknown, options?: StepOptions | null): string | undefined {
    return this.recordBuilt(() => ({ operation: 'failed', name, error: error ?? 'failed', ...stepFields(options ?? {}) }));
  }

  /**
   * The journey finished: `completed`, or with `{ status: 'failed' }` a terminal `failed` step.
   * Takes `finish(name?, options?)` or `finish(options)`.
   */
  finish(nameOrOptions?: string | FinishOptions | null, given?: FinishOptions | null): string | undefined {
    return this.recordBuilt(() => {
      const byObject = nameOrOptions !== null && typeof nameOrOptions === 'object';
      const options: FinishOptions = (byObject ? nameOrOptions : given) ?? {};
      const failed = options.status === 'failed';
      const named = byObject ? options.name : (nameOrOptions ?? options.name);
      const name = typeof named === 'string' && named !== '' ? named : failed ? 'failed' : 'complete';
      if (failed) return { operation: 'failed', name, error: options.error ?? 'failed', ...stepFields(options) };
      return { operation: 'completed', name, ...stepFields(options) };
    });
  }

  /** Records fields built by `build`, whose reading of the host's options may throw: never into the host. */
  private recordBuilt(build: () => RecordFields): string | undefined {
    try {
      return this.record(build());
    } catch {
      return undefined;
    }
  }

  receive<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'received', name, input, fn, options);
  }
  transform<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'transformed', name, input, fn, options);
  }
  validate<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'validated', name, input, fn, options);
  }
  persist<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'persisted', name, input, fn, options);
  }
  publish<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'published', name, input, fn, options);
  }
  consume<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'consumed', name, input, fn, options);
  }
  deliver<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep([this], 'delivered', name, input, fn, options);
  }
}

/**
 * Runs `fn(input)` once and records the step on each journey of `targets` (one, or several through
 * `across`), each event with its own id. A synchronous function stays synchronous; for a promise,
 * the same promise object is returned and the step is recorded when it settles.
 */
export function wrapStep<I, O>(
  targets: readonly Journey[],
  operation: Operation,
  name: string,
  input: I,
  fn: Wrapped<I, O>,
  given?: WrapOptions<I, O> | null,
): O {
  const options = (given ?? {}) as WrapOptions;
  const started = performance.now();
  const timestamp = new Date();
  let result: O;
  try {
    result = fn(input);
  } catch (error) {
    recordStep(targets, operation, name, input, undefined, error, started, timestamp, options, true);
    throw error;
  }
  const kind = resultKind(result);
  if (kind === 'promise') {
    try {
      (result as Promise<unknown>).then(
        (value) => recordStep(targets, operation, name, input, value, undefined, started, timestamp, options, false),
        (error: unknown) => recordStep(targets, operation, name, input, undefined, error, started, timestamp, options, true),
      );
    } catch {
      // A promise subclass whose `then` throws is the host's business; its value is still returned.
    }
    return result;
  }
  // Any other thenable (a query builder, a lazy request) may start work on each `then`: it is
  // never called. The step is recorded now, without an output.
  // Its value is never read, so there is nothing to project or judge.
  const recorded = kind === 'thenable' ? { ...options, captureOutput: undefined, isFailure: undefined } : options;
  recordStep(targets, operation, name, input, kind === 'thenable' ? undefined : result, undefined, started, timestamp, recorded, false);
  return result;
}

function recordStep(
  targets: readonly Journey[],
  operation: Operation,
  name: string,
  input: unknown,
  output: unknown,
  error: unknown,
  started: number,
  timestamp: Date,
  options: WrapOptions,
  threw: boolean,
): void {
  try {
    const attempt = options.attempt;
    const retried = typeof attempt === 'number' && attempt > 1;
    // Built field by field rather than spread: this runs on every wrapped call.
    const fields: RecordFields = { operation: retried ? 'retried' : operation, name, input: options.captureInput === undefined ? input : project(options.captureInput, input) };
    if (threw) fields.error = error ?? 'undefined was thrown';
    else {
      fields.output = options.captureOutput === undefined ? output : project(options.captureOutput, output);
      if (options.isFailure !== undefined) {
        const reason = failureReason(options.isFailure, output);
        if (reason !== undefined) fields.error = { type: RESULT_FAILURE_TYPE, message: reason };
      }
    }
    fields.durationMs = performance.now() - started;
    fields.timestamp = timestamp;
    if (options.metadata !== undefined || options.attempt !== undefined || options.messageId !== undefined || options.correlationId !== undefined) {
      Object.assign(fields, stepFields(options));
    }
    // Projections and the judge ran once; each journey gets its own copy of the fields.
    for (const target of targets) target.record({ ...fields });
  } catch {
    // Recording never reaches the host.
  }
}

/** A projection's value; one that throws stores the marker for a value that could not be read (5.9). */
function project(projection: (value: never) => unknown, value: unknown): unknown {
  try {
    return projection(value as never);
  } catch {
    return UNCAPTURABLE;
  }
}

/** The reason a result is a failure, or undefined; a judge that throws judges nothing. */
function failureReason(judge: (value: never) => unknown, value: unknown): string | undefined {
  try {
    const verdict = judge(value as never);
    if (typeof verdict === 'string' && verdict !== '') return verdict;
    return verdict === true ? 'The result is a failure.' : undefined;
  } catch {
    return undefined;
  }
}

function stepFields(options: StepOptions): Partial<RecordFields> {
  const metadata = options.attempt !== undefined ? { ...options.metadata, attempt: options.attempt } : options.metadata;
  return {
    ...(metadata !== undefined ? { metadata } : {}),
    ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    ...(options.correlationId !== undefined ? { correlationId: options.correlationId } : {}),
  };
}
