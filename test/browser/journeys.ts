// Journeys sent through the real ingestion route, for the benchmark's long timelines.

export interface SentEvent {
  id: string;
  journeyId: string;
  [field: string]: unknown;
}

/** Sends events in batches of 100 through POST /v1/events/batch; throws on any refusal. */
export async function sendEvents(baseUrl: string, apiKey: string, events: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < events.length; start += 100) {
    const batch = events.slice(start, start + 100).map((event) => ({ protocolVersion: '0.1', event }));
    const response = await fetch(`${baseUrl}/v1/events/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch }),
    });
    const text = await response.text();
    if (response.status !== 202 || /"code"/.test(text)) throw new Error(`batch refused: ${response.status} ${text.slice(0, 300)}`);
  }
}

/** One journey of `count` steps spread over services, a few failing and retried, in the last hour. */
export function longJourney(journeyId: string, count: number, environment: string, now = Date.now()): SentEvent[] {
  const services = ['webhook', 'normalizer', 'crm', 'queue', 'worker'];
  const start = now - 30 * 60 * 1000;
  return Array.from({ length: count }, (_, index) => {
    const failing = index % 97 === 50;
    // A retry repeats the step that failed just before it; every other step has its own name.
    const step = index % 97 === 51 ? index - 1 : index;
    return {
      id: `${journeyId}_e${index}`,
      journeyId,
      environment,
      service: services[step % services.length]!,
      entity: { type: 'contact', id: `${journeyId}-contact` },
      operation: index === 0 ? 'received' : failing ? 'delivered' : index % 97 === 51 ? 'retried' : 'transformed',
      name: `step-${step}`,
      timestamp: new Date(start + index * 1500).toISOString(),
      durationMs: 20 + (index % 13) * 40,
      input: { index, customer: { phone: '+15550100', name: 'Ada' } },
      output: { index, customer: { phone: index % 7 === 0 ? null : '+15550100', name: 'Ada' } },
      ...(failing ? { error: { type: 'DeliveryError', message: 'upstream answered 503' } } : {}),
      ...(index === 0 ? { journeyLabel: `Long journey ${journeyId}` } : {}),
    };
  });
}
