// A stand-in for fetch in pure tests: records every batch and answers per event as told.
import type { Diagnostic } from './types.ts';

export type Answer = (events: Array<Record<string, unknown>>, request: number) => { status: number; body?: unknown } | Promise<{ status: number; body?: unknown }>;

export const acceptAll: Answer = (events) => ({
  status: 202,
  body: { data: { results: events.map((event) => ({ eventId: event.id, status: 'accepted', duplicate: false })) } },
});

export function fakeFetch(answer: Answer = acceptAll) {
  const batches: Array<Array<Record<string, unknown>>> = [];
  const fetchImpl = (async (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { events: Array<{ event: Record<string, unknown> }> };
    const events = body.events.map((envelope) => envelope.event);
    batches.push(events);
    const reply = await answer(events, batches.length);
    return new Response(reply.body === undefined ? '' : JSON.stringify(reply.body), { status: reply.status });
  }) as typeof fetch;
  return { fetch: fetchImpl, batches, events: () => batches.flat() };
}

export function baseOptions(fetchImpl: typeof fetch, diagnostics: Diagnostic[] = []) {
  return {
    endpoint: 'http://jtrace.test',
    apiKey: 'jt_test_key',
    serviceName: 'orders',
    environment: 'production',
    fetch: fetchImpl,
    openTelemetry: null,
    onDiagnostic: (diagnostic: Diagnostic) => diagnostics.push(diagnostic),
  };
}
