import { describe, expect, it } from 'vitest';
import { DEMO_JOURNEY_COUNT, buildDemoJourneys, demoOutcome } from './demo-journeys.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

describe('demo journeys', () => {
  const journeys = buildDemoJourneys(NOW);

  it('tells every story, most journeys completing', () => {
    const counts: Record<string, number> = {};
    for (let i = 0; i < DEMO_JOURNEY_COUNT; i++) counts[demoOutcome(i)] = (counts[demoOutcome(i)] ?? 0) + 1;
    expect(counts['completed']).toBeGreaterThan(DEMO_JOURNEY_COUNT / 2);
    for (const outcome of ['phone-lost', 'retried', 'failed', 'in-progress']) expect(counts[outcome]).toBeGreaterThanOrEqual(2);
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

  it('names contacts and aliases as the interface expects', () => {
    expect(journeys[0]!.entityId).toBe('contact-1001');
    const normalize = journeys[0]!.events[1]!;
    expect(normalize.aliases).toEqual({ email: expect.stringMatching(/@example\.com$/), crm: 'crm-8800' });
    expect(normalize.displayableAliases).toEqual(['email']);
  });
});
