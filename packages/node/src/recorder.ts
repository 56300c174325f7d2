// createRecorder: configuration, journeys, and the bridge from a recorded step to the delivery
// queue. Configuration mistakes never throw: they are reported and the recorder goes quiet, so a
// missing variable cannot take the host service down.
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { type Reporter, createReporter } from './diagnostics.ts';
import { Delivery, emptyCounters } from './delivery.ts';
import { type BuilderSettings, buildEnvelope } from './event-builder.ts';
import { fitField } from './fit.ts';
import { JourneyGroup } from './across.ts';
import { Journey, type JourneySink } from './journey.ts';
import { deriveJourneyId, isUsableSecret, randomJourneyId } from './journey-id.ts';
import {
  DEFAULT_MAX_EVENT_PAYLOAD_BYTES,
  DEPLOYMENT_FIELD_LENGTHS,
  MAX_BATCH_EVENTS,
  MAX_MAX_EVENT_PAYLOAD_BYTES,
  MIN_MAX_EVENT_PAYLOAD_BYTES,
  compileRules,
  createInPlaceRedactor,
} from './shared-rules.ts';
import type { ContinueJourneyOptions, Counters, Entity, OpenTelemetryApi, RecordFields, RecorderOptions, StartJourneyOptions } from './types.ts';
import { SDK_NAME, SDK_VERSION } from './version.ts';

export const DEFAULTS = Object.freeze({
  batchSize: MAX_BATCH_EVENTS,
  flushIntervalMs: 1_000,
  maxQueueSize: 10_000,
  maxQueueBytes: 64 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
  resendDelayMs: 500,
  maxEventBytes: DEFAULT_MAX_EVENT_PAYLOAD_BYTES,
  flushTimeoutMs: 5_000,
  shutdownTimeoutMs: 5_000,
});

export interface Recorder {
  startJourney(options: StartJourneyOptions): Journey;
  continueJourney(options: ContinueJourneyOptions): Journey;
  /** One operation on several journeys: wrappers and steps run once, each journey gets its own event. */
  across(journeys: Iterable<Journey>): JourneyGroup;
  /** Sends what is queued; resolves true when all of it was settled, false at the timeout. Never rejects. */
  flush(options?: { timeoutMs?: number }): Promise<boolean>;
  /** Flushes, then stops; whatever is left at the timeout is dropped and counted. Never rejects. */
  shutdown(options?: { timeoutMs?: number }): Promise<boolean>;
  counters(): Counters;
}

function wholeNumber(value: unknown, fallback: number, min: number, max: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  problems.push(`${name} must be a whole number from ${min} to ${max}; using ${fallback}`);
  return fallback;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function batchUrl(endpoint: string): string | null {
  try {
    const url = new URL(endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return new URL('v1/events/batch', url.href.endsWith('/') ? url.href : `${url.href}/`).href;
  } catch {
    return null;
  }
}

/**
 * The active OpenTelemetry span's ids when `@opentelemetry/api` is installed (an optional peer).
 * Loaded synchronously, so that steps recorded right after the recorder is made already carry
 * them; an install that only an ESM import can load is picked up when that import settles.
 * Either copy of the API reads the same global tracer and context manager.
 */
function loadOpenTelemetry(holder: { api: OpenTelemetryApi | null }): void {
  const specifier = '@opentelemetry/api';
  try {
    const module = createRequire(import.meta.url)(specifier) as OpenTelemetryApi;
    if (module?.trace) {
      holder.api = module;
      return;
    }
  } catch {
    // not installed, or not loadable by require: try the import below
  }
  import(specifier).then(
    (module: OpenTelemetryApi & { default?: OpenTelemetryApi }) => {
      holder.api = module.trace ? module : (module.default ?? null);
    },
    () => {},
  );
}

export function createRecorder(options: RecorderOptions): Recorder {
  const report = createReporter(typeof options?.onDiagnostic === 'function' ? options.onDiagnostic : undefined);
  const counters = emptyCounters();
  const fatal: string[] = [];
  const warnings: string[] = [];
  const opts = (options ?? {}) as RecorderOptions;
  const url = batchUrl(text(opts.endpoint));
  if (url === null) fatal.push('endpoint must be an http(s) URL');
  if (text(opts.apiKey) === '') fatal.push('apiKey is required');
  const service = text(opts.serviceName);
  if (service === '') fatal.push('serviceName is required');
  const environment = text(opts.environment);
  if (environment === '') fatal.push('environment is required');
  const batchSize = wholeNumber(opts.batchSize, DEFAULTS.batchSize, 1, MAX_BATCH_EVENTS, 'batchSize', warnings);
  const flushIntervalMs = wholeNumber(opts.flushIntervalMs, DEFAULTS.flushIntervalMs, 1, 3_600_000, 'flushIntervalMs', warnings);
  const maxQueueSize = wholeNumber(opts.maxQueueSize, DEFAULTS.maxQueueSize, 1, 10_000_000, 'maxQueueSize', warnings);
  const maxQueueBytes = wholeNumber(opts.maxQueueBytes, DEFAULTS.maxQueueBytes, 1024 * 1024, 4 * 1024 * 1024 * 1024, 'maxQueueBytes', warnings);
  const requestTimeoutMs = wholeNumber(opts.requestTimeoutMs, DEFAULTS.requestTimeoutMs, 1, 600_000, 'requestTimeoutMs', warnings);
  const breakerThreshold = wholeNumber(opts.breakerThreshold, DEFAULTS.breakerThreshold, 1, 1_000, 'breakerThreshold', warnings);
  const breakerCooldownMs = wholeNumber(opts.breakerCooldownMs, DEFAULTS.breakerCooldownMs, 0, 3_600_000, 'breakerCooldownMs', warnings);
  const resendDelayMs = wholeNumber(opts.resendDelayMs, DEFAULTS.resendDelayMs, 0, 60_000, 'resendDelayMs', warnings);
  const maxEventBytes = wholeNumber(opts.maxEventBytes, DEFAULTS.maxEventBytes, MIN_MAX_EVENT_PAYLOAD_BYTES, MAX_MAX_EVENT_PAYLOAD_BYTES, 'maxEventBytes', warnings);
  const { rules, malformed } = compileRules(redactionRules(opts.redactionPaths, warnings));
  const openTelemetry = openTelemetryOption(opts.openTelemetry, warnings);
  const deployment = deploymentOption(opts.deployment, warnings);
  for (const rule of malformed) warnings.push(`redaction rule ${JSON.stringify(rule)} is malformed and protects nothing`);
  let secret: string | undefined;
  if (opts.journeyIdSecret !== undefined) {
    if (typeof opts.journeyIdSecret === 'string' && isUsableSecret(opts.journeyIdSecret)) secret = opts.journeyIdSecret;
    else warnings.push('journeyIdSecret must be at least 32 bytes of UTF-8; journey ids are random instead');
  }
  for (const problem of [...fatal, ...warnings]) {
    report({ kind: 'configuration_error', message: `jtrace recorder: ${problem}.`, detail: { problem } });
  }
  const enabled = fatal.length === 0 && opts.enabled !== false;
  const peerPropagation = opts.peerPropagation === true;
  const otel = { api: openTelemetry ?? null };
  if (enabled && opts.openTelemetry === undefined) loadOpenTelemetry(otel);

  const settings: BuilderSettings = {
    service: fitField(service, 128),
    environment,
    // The captured copy is the recorder's own, so redaction writes into it rather than copying again.
    redact: createInPlaceRedactor(rules),
    captureStack: opts.captureStack === true,
    maxEventBytes,
    runtime: {
      language: 'node',
      version: process.versions.node,
      hostname: fitField(hostname(), 256),
      processId: process.pid,
      sdk: { name: SDK_NAME, version: SDK_VERSION },
    },
    deployment,
    report,
    reportedNames: new Set(),
  };
  const delivery = enabled
    ? new Delivery(
        {
          url: url as string,
          apiKey: text(opts.apiKey),
          batchSize,
          flushIntervalMs,
          maxQueueSize,
          maxQueueBytes,
          requestTimeoutMs,
          breakerThreshold,
          breakerCooldownMs,
          resendDelayMs,
          fetch: opts.fetch ?? globalThis.fetch,
        },
        counters,
        report,
      )
    : null;

  const sink: JourneySink = {
    record(journey: Journey, fields: RecordFields): string | undefined {
      counters.recorded += 1;
      if (delivery === null) {
        counters.dropped += 1;
        counters.droppedByCause.disabled += 1;
        return undefined;
      }
      try {
        const span = otel.api?.trace.getActiveSpan()?.spanContext();
        const envelope = buildEnvelope(settings, {
          journeyId: journey.journeyId,
          entity: journey.entity,
          label: journey.takeLabel(),
          traceId: span?.traceId,
          spanId: span?.spanId,
        }, fields);
        delivery.enqueue(envelope);
        return envelope.id;
      } catch (error) {
        delivery.drop(1, 'capture_failed');
        report({ kind: 'internal_error', message: `An event could not be captured (${error instanceof Error ? error.name : typeof error}).` });
        return undefined;
      }
    },
  };

  const journeyIdFor = (entity: Entity): string => {
    if (secret === undefined) return randomJourneyId();
    const derived = deriveJourneyId(secret, environment, entity);
    if (derived !== null) return derived;
    report({ kind: 'journey_id_not_derived', message: 'An entity or environment holds an unpaired surrogate; the journey id is random.' });
    return randomJourneyId();
  };

  const safeEntity = (entity: Entity | undefined): Entity => ({
    type: typeof entity?.type === 'string' ? entity.type : String(entity?.type ?? 'unknown'),
    id: typeof entity?.id === 'string' ? entity.id : String(entity?.id ?? 'unknown'),
  });

  return {
    startJourney(start: StartJourneyOptions): Journey {
      try {
        const entity = safeEntity(start?.entity);
        return new Journey(sink, {
          journeyId: typeof start.journeyId === 'string' && start.journeyId !== '' ? start.journeyId : journeyIdFor(entity),
          entity,
          label: start.label,
          aliases: start.aliases,
          displayableAliases: start.displayableAliases,
          peerPropagation,
        });
      } catch {
        return new Journey(null, { journeyId: randomJourneyId(), entity: { type: 'unknown', id: 'unknown' } });
      }
    },
    continueJourney(cont: ContinueJourneyOptions): Journey {
      try {
        const context = cont?.context;
        const label = typeof cont?.label === 'string' ? cont.label : undefined;
        if (context) {
          // A peer service may send the journey without its entity: the host's, else "unknown".
          const entity = safeEntity(context.entity ?? cont.entity);
          return new Journey(sink, { journeyId: context.journeyId, entity, parentEventId: context.parentEventId, label, peerPropagation });
        }
        if (typeof cont?.journeyId === 'string' && cont.journeyId !== '') {
          return new Journey(sink, { journeyId: cont.journeyId, entity: safeEntity(cont.entity), label, peerPropagation });
        }
        // No context arrived (an uninstrumented caller): a new journey when the entity is known.
        if (cont?.entity) return this.startJourney({ entity: cont.entity, ...(label !== undefined ? { label } : {}) });
      } catch {
        // fall through to a journey that records nothing
      }
      return new Journey(null, { journeyId: randomJourneyId(), entity: { type: 'unknown', id: 'unknown' } });
    },
    across(journeys: Iterable<Journey>): JourneyGroup {
      try {
        // Anything that is not a journey is left out rather than thrown on.
        return new JourneyGroup([...journeys].filter((journey) => journey instanceof Journey));
      } catch {
        return new JourneyGroup([]);
      }
    },
    async flush(flushOptions): Promise<boolean> {
      try {
        return delivery === null ? true : await delivery.flush(timeoutOr(flushOptions, DEFAULTS.flushTimeoutMs));
      } catch {
        return false;
      }
    },
    async shutdown(shutdownOptions): Promise<boolean> {
      try {
        return delivery === null ? true : await delivery.shutdown(timeoutOr(shutdownOptions, DEFAULTS.shutdownTimeoutMs));
      } catch {
        return false;
      }
    },
    counters(): Counters {
      return { ...counters, droppedByCause: { ...counters.droppedByCause } };
    },
  };
}

/** A usable timeout from the host's options: anything but a finite number of ms is the default. */
function timeoutOr(options: { timeoutMs?: unknown } | null | undefined, fallback: number): number {
  const timeoutMs = options?.timeoutMs;
  return typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) ? Math.max(0, timeoutMs) : fallback;
}

/** Operator rules; one rule given as a string is taken as a list of one, and said so. */
function redactionRules(value: unknown, warnings: string[]): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) {
    const rules = value.filter((rule): rule is string => typeof rule === 'string');
    if (rules.length < value.length) warnings.push('redactionPaths holds a rule that is not a string; it protects nothing');
    return rules;
  }
  if (typeof value === 'string') {
    warnings.push('redactionPaths must be an array of rules; the one string given is used as a list of one');
    return [value];
  }
  warnings.push('redactionPaths must be an array of rules; it is ignored');
  return [];
}

/** `undefined`: look the API up; `null`: off; anything without `trace.getActiveSpan` is refused. */
function openTelemetryOption(value: unknown, warnings: string[]): OpenTelemetryApi | null | undefined {
  if (value === undefined || value === null) return value;
  try {
    if (typeof (value as OpenTelemetryApi).trace?.getActiveSpan === 'function') return value as OpenTelemetryApi;
  } catch {
    // unreadable: refused below
  }
  warnings.push('openTelemetry must be the @opentelemetry/api module (or null); trace ids are not sent');
  return null;
}

/** The `deployment` object sent with every event: its three known fields, fitted to their lengths (2.3). */
function deploymentOption(value: unknown, warnings: string[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    warnings.push('deployment must be an object { gitCommit?, version?, image? }; it is not sent');
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const key of ['gitCommit', 'version', 'image'] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined) continue;
    if (typeof field !== 'string') {
      warnings.push(`deployment.${key} must be a string; it is not sent`);
      continue;
    }
    out[key] = fitField(field, DEPLOYMENT_FIELD_LENGTHS[key].max);
  }
  return out;
}
