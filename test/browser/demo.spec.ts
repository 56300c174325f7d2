import { describe, expect, it } from 'vitest';
import { DEMO_JOURNEY_COUNT, DEMO_SKEWED_JOURNEY, demoOutcome } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';
import { adminApi, recentJourneys } from './subjects.ts';

const journeyId = (i: number) => `jrn_demo_${1001 + i}`;

describe('the demo in the browser', () => {
  const ui = useInterface();
  const api = () => adminApi(ui.server.baseUrl, ui.demo.projectId);

  it('loses only what each journey is about, the phone within a step or in transit', async () => {
    interface Changes {
      changes: { path: string; kind: string; steps: { inTransit: boolean }[] }[];
    }
    const story: Record<string, string[]> = { 'phone-lost': ['customer.phone'], 'phone-dropped': ['customer.phone in transit'] };
    for (let i = 0; i < DEMO_JOURNEY_COUNT; i++) {
      const { changes } = await api()<Changes>(`/v1/journeys/${journeyId(i)}/changes`);
      const lost = changes.filter((c) => c.kind === 'lost').map((c) => `${c.path}${c.steps.some((s) => s.inTransit) ? ' in transit' : ''}`);
      expect(lost, journeyId(i)).toEqual(story[demoOutcome(i)] ?? []);
    }
  });

  it('flags clock skew on no journey but the one whose gateway clock is slow', { timeout: 180_000 }, async () => {
    const journeys = await recentJourneys(api());
    expect(journeys).toHaveLength(DEMO_JOURNEY_COUNT);
    const first = `/ui/projects/${ui.demo.projectId}/journeys/${journeys[0]!.journeyId}`;
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(first));
    await ui.signIn(page);
    const flagged: Record<string, number> = {};
    for (const journey of journeys) {
      await page.goto(`${ui.server.baseUrl}/ui/projects/${ui.demo.projectId}/journeys/${journey.journeyId}`);
      await page.locator('.timeline li.event').first().waitFor();
      flagged[journey.journeyId] = await page.locator('.timeline .flag-skew').count();
    }
    const expected = Object.fromEntries(journeys.map((j) => [j.journeyId, j.journeyId === journeyId(DEMO_SKEWED_JOURNEY) ? 1 : 0]));
    expect(flagged).toEqual(expected);
  });
});
