// One operation that belongs to several journeys (a digest written for three customers, a batch
// job touching many orders): the host's function runs once, and each journey gets an event of its
// own (its own id, its own parent link), so every journey's timeline shows the step.
import { type Journey, type Wrapped, wrapStep } from './journey.ts';
import type { Aliases, FinishOptions, RecordFields, StepOptions, WrapOptions } from './types.ts';

export class JourneyGroup {
  readonly journeys: readonly Journey[];

  constructor(journeys: Iterable<Journey>) {
    // A copy, and without repeats: one journey named twice still gets one event per step.
    this.journeys = [...new Set(journeys)];
  }

  /** Records the same fields on each journey; returns the event ids (undefined where nothing was queued). */
  record(fields: RecordFields): Array<string | undefined> {
    return this.journeys.map((journey) => journey.record({ ...fields }));
  }
  identify(aliases: Aliases, options?: { displayable?: string[] } | null): Array<string | undefined> {
    return this.journeys.map((journey) => journey.identify(aliases, options));
  }
  fail(name: string, error: unknown, options?: StepOptions | null): Array<string | undefined> {
    return this.journeys.map((journey) => journey.fail(name, error, options));
  }
  finish(nameOrOptions?: string | FinishOptions | null, given?: FinishOptions | null): Array<string | undefined> {
    return this.journeys.map((journey) => journey.finish(nameOrOptions, given));
  }
  label(text: string): void {
    for (const journey of this.journeys) journey.label(text);
  }

  receive<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'received', name, input, fn, options);
  }
  transform<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'transformed', name, input, fn, options);
  }
  validate<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'validated', name, input, fn, options);
  }
  persist<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'persisted', name, input, fn, options);
  }
  publish<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'published', name, input, fn, options);
  }
  consume<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'consumed', name, input, fn, options);
  }
  deliver<I, O>(name: string, input: I, fn: Wrapped<I, O>, options?: WrapOptions<I, O> | null): O {
    return wrapStep(this.journeys, 'delivered', name, input, fn, options);
  }
}
