import { beforeAll, describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { longJourney, sendEvents } from './journeys.ts';

/**
 * A long journey's timeline draws only the rows in view, and every row is still reached: by
 * scrolling (the next page loads as the end comes into view) and by "j".
 */
describe('a long journey’s timeline', () => {
  const ui = useInterface();
  const EVENTS = 300;
  const journeyId = 'jrn_long_timeline';
  const lastId = `${journeyId}_e${EVENTS - 1}`;

  async function open() {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys/${journeyId}`));
    await page.setViewportSize({ width: 1280, height: 800 });
    await ui.signIn(page);
    await page.locator('.timeline li.event').first().waitFor();
    return page;
  }
  beforeAll(async () => {
    await sendEvents(ui.server.baseUrl, ui.demo.apiKey, longJourney(journeyId, EVENTS, 'production'));
  });
  const drawnRows = (page: Awaited<ReturnType<typeof open>>) => page.locator('.timeline li.event').count();

  it('draws a window of rows and reaches the last by scrolling', async () => {
    const page = await open();
    expect(await drawnRows(page)).toBeLessThanOrEqual(60);
    const last = page.locator('.timeline li.event', { hasText: `step-${EVENTS - 1} ` });
    for (let i = 0; i < 60 && (await last.count()) === 0; i++) {
      await page.locator('.timeline-scroll').hover();
      await page.mouse.wheel(0, 4000);
      await page.waitForTimeout(100);
    }
    await last.waitFor();
    expect(await page.getByRole('button', { name: /Load more events/u }).count()).toBe(0);
    expect(await drawnRows(page)).toBeLessThanOrEqual(60);
    await ui.checkAccessibility(page, 'a long journey scrolled to its end');
  });

  it('reaches every event with j, the selected row always drawn', { timeout: 120_000 }, async () => {
    const page = await open();
    await page.locator('.timeline .event-button').first().click();
    const selected = () => new URL(page.url()).searchParams.get('event');
    const seen = new Set<string>();
    for (let i = 0; i < EVENTS * 2 && selected() !== lastId; i++) {
      await page.keyboard.press('j');
      await page.locator('.timeline li.event-selected').waitFor();
      seen.add(selected()!);
    }
    expect(selected()).toBe(lastId);
    expect(seen.size).toBeGreaterThanOrEqual(EVENTS - 2);
    expect(await page.locator('.timeline li.event-selected').textContent()).toContain(`step-${EVENTS - 1}`);
    expect(await drawnRows(page)).toBeLessThanOrEqual(60);
  });
});
