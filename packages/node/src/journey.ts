// A journey handle: wrappers around the host's own functions and explicit steps. Nothing here
// throws into the host or changes what the host's function returns: the SDK's own work runs in
// try/catch, and a wrapped function's value or exact error object is handed back untouched.
import type { Aliases, Entity, JourneyContext, Operation, RecordFields, StepOptions } from './types.ts';

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
}

type Wrapped<I, O> = (input: I) => O;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export class Journey {
  readonly journeyId: string;
  readonly entity: Entity;
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
  }

  /** What propagation carries to the next service (never aliases). */
  context(): JourneyContext {
    return { journeyId: this.journeyId, entity: { ...this.entity }, ...(this.lastEventId ? { parentEventId: this.lastEventId } : {}) };
  }

  /** The label sent on the next event (4.4): public display text, no personal data. */
  label(text: string): void {
    this.pendingLabel = text;
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
  identify(aliases: Aliases, options: { displayable?: string[] } = {}): string | undefined {
    return this.record({ operation: 'identified', name: 'identify', aliases, ...(options.displayable ? { displayableAliases: options.displayable } : {}) });
  }

  /** A terminal failure of a step (`failed`), e.g. a move to a dead-letter queue. */
  fail(name: string, error: unknown, options: StepOptions = {}): string | undefined {
    return this.record({ operation: 'failed', name, error: error ?? 'failed', ...stepFields(options) });
  }

  /** The journey finished (`completed`). */
  finish(name = 'complete', options: StepOptions = {}): string | undefined {
    return this.record({ operation: 'completed', name, ...stepFields(options) });
  }

  receive<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('received', name, input, fn, options);
  }
  transform<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('transformed', name, input, fn, options);
  }
  validate<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('validated', name, input, fn, options);
  }
  persist<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('persisted', name, input, fn, options);
  }
  publish<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('published', name, input, fn, options);
  }
  consume<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('consumed', name, input, fn, options);
  }
  deliver<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: StepOptions): O {
    return this.wrap('delivered', name, input, fn, options);
  }

  /**
   * Runs `fn(input)` and records the step. A synchronous function stays synchronous; for a
   * promise, the same promise object is returned and the step is recorded when it settles.
   */
  private wrap<I, O>(operation: Operation, name: string, input: I, fn: Wrapped<I, O>, options: StepOptions = {}): O {
    const started = performance.now();
    const timestamp = new Date();
    let result: O;
    try {
      result = fn(input);
    } catch (error) {
      this.recordStep(operation, name, input, undefined, error, started, timestamp, options, true);
      throw error;
    }
    if (isThenable(result)) {
      try {
        result.then(
          (value) => this.recordStep(operation, name, input, value, undefined, started, timestamp, options, false),
          (error: unknown) => this.recordStep(operation, name, input, undefined, error, started, timestamp, options, true),
        );
      } catch {
        // A thenable whose `then` throws is the host's business; its value is still returned.
      }
      return result;
    }
    this.recordStep(operation, name, input, result, undefined, started, timestamp, options, false);
    return result;
  }

  private recordStep(
    operation: Operation,
    name: string,
    input: unknown,
    output: unknown,
    error: unknown,
    started: number,
    timestamp: Date,
    options: StepOptions,
    threw: boolean,
  ): void {
    try {
      const attempt = options.attempt;
      const retried = typeof attempt === 'number' && attempt > 1;
      // Built field by field rather than spread: this runs on every wrapped call.
      const fields: RecordFields = { operation: retried ? 'retried' : operation, name, input };
      if (threw) fields.error = error ?? 'undefined was thrown';
      else fields.output = output;
      fields.durationMs = performance.now() - started;
      fields.timestamp = timestamp;
      if (options.metadata !== undefined || options.attempt !== undefined || options.messageId !== undefined || options.correlationId !== undefined) {
        Object.assign(fields, stepFields(options));
      }
      this.record(fields);
    } catch {
      // Recording never reaches the host.
    }
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
