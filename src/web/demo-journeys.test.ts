import { describe, expect, it } from 'vitest';
import { DEMO_JOURNEY_COUNT, DEMO_SKEWED_JOURNEY, DEMO_STALLED_JOURNEY, buildDemoJourneys, demoOutcome } from './demo-journeys.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

describe('demo journeys', () => {
  const journeys = buildDemoJourneys(NOW);

  it('tells every story, most journeys completing', () => {
    const counts: Record<string, number> = {};
    for (let i = 0; i < DEMO_JOURNEY_COUNT; i++) counts[demoOutcome(i)] = (counts[demoOutcome(i)] ?? 0) + 1;
    expect(counts['completed']).toBeGreaterThan(DEMO_JOURNEY_COUNT / 2);
    for (const outcome of ['phone-lost', 'phone-dropped', 'retried', 'failed', 'in-progress']) expect(counts[outcome]).toBeGreaterThanOrEqual(2);
  });

  it('has unique, deterministic ids and events in time order, all before the run', () => {
    const ids = journeys.flatMap((j) => j.events.map((e) => e.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(buildDemoJourneys(NOW + 60_000).flatMap((j) => j.events.map((e) => e.id))).toEqual(ids);
    for (const journey of journeys) {
      const times = journey.events.map((e) => Date.parse(e.timestamp as string));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(Math.max(...times)).toBeLessThan(NOW);
      expect(Math.min(...times)).toBeGreaterThan(NOW - 60 * 60_000);
    }
  });

  it('loses the phone in the normalisation step of the phone-lost journeys only', () => {
    for (const [i, journey] of journeys.entries()) {
      const normalize = journey.events.find((e) => e.name === 'normalize-contact')!;
      const input = normalize.input as { customer: { phone: string } };
      const output = normalize.output as { customer: { phone?: string | null } };
      expect(input.customer.phone).toMatch(/^01632 960\d{3}$/);
      if (demoOutcome(i) === 'phone-lost') expect(output.customer.phone ?? null).toBeNull();
      else expect(output.customer.phone).toMatch(/^\+441632960\d{3}$/);
    }
  });

  // The interface flags an event stamped more than 2 minutes from its arrival (web/src/lib/timeline.ts);
  // the demo is sent right after it is built, within seconds.
  it('stamps steps seconds apart, within a minute and a half of the run, but for the slow gateway clock of one journey and the stalled queue of another', () => {
    for (const [i, journey] of journeys.entries()) {
      const times = journey.events.map((e) => Date.parse(e.timestamp as string));
      const skewed = journey.events.map((e) => i === DEMO_SKEWED_JOURNEY && e.service === 'webhook-gateway');
      times.forEach((time, at) => {
        if (skewed[at]) expect(NOW - time).toBeGreaterThan(3 * 60_000);
        else expect(NOW - time).toBeLessThan(90_000);
        const stalled = i === DEMO_STALLED_JOURNEY && journey.events[at]!.name === 'publish';
        if (stalled) expect(time - times[at - 1]!).toBeGreaterThan(60_000);
        else if (at > 0 && !skewed[at - 1]) expect(time - times[at - 1]!).toBeLessThan(20_000);
      });
    }
    expect(journeys[DEMO_SKEWED_JOURNEY]!.events.filter((e) => e.service === 'webhook-gateway')).toHaveLength(1);
  });

  it('drops the phone between the CRM write and the delivery in the phone-dropped journeys only', () => {
    const phoneOf = (payload: unknown) => (payload as { customer: { phone?: unknown } }).customer.phone;
    for (const [i, journey] of journeys.entries()) {
      const persist = journey.events.find((e) => e.name === 'persist')!;
      const deliver = journey.events.find((e) => e.name === 'deliver');
      if (demoOutcome(i) === 'phone-lost' || deliver === undefined) continue;
      expect(phoneOf(persist.output)).toMatch(/^\+441632960\d{3}$/);
      if (demoOutcome(i) === 'phone-dropped') expect(phoneOf(deliver.input)).toBeUndefined();
      else expect(phoneOf(deliver.input)).toBe(phoneOf(persist.output));
    }
  });

  it('records every delivery attempt a failed journey’s dead-letter error counts', () => {
    for (const [i, journey] of journeys.entries()) {
      if (demoOutcome(i) !== 'failed') continue;
      const attempts = journey.events.filter((e) => e.name === 'deliver');
      const last = attempts.at(-1)!.error as { message: string };
      expect(attempts).toHaveLength(Number(/after (\d+) attempts/.exec(last.message)![1]));
      expect(attempts.map((e) => (e.metadata as { attempt: number }).attempt)).toEqual([1, 2, 3]);
    }
  });

  it('names contacts and aliases as the interface expects', () => {
    expect(journeys[0]!.entityId).toBe('contact-1001');
    const normalize = journeys[0]!.events[1]!;
    expect(normalize.aliases).toEqual({ email: expect.stringMatching(/@example\.com$/), crm: 'crm-8800' });
    expect(normalize.displayableAliases).toEqual(['email']);
  });
});
