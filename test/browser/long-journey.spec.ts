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

  it('asks for the next page of rows before it is wanted, so "Load more" adds it without waiting', async () => {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys/${journeyId}`));
    const pages: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes(`/journeys/${journeyId}/events?`)) pages.push(new URL(request.url()).searchParams.get('cursor') ?? 'first');
    });
    await ui.signIn(page);
    await page.locator('.timeline li.event').first().waitFor();
    // Nothing scrolled or clicked: the second page is read all the same.
    await expect.poll(() => pages.length).toBe(2);
    await page.getByRole('button', { name: /Load more events \(100 of 300\)/u }).click();
    await page.getByRole('button', { name: /Load more events \(200 of 300\)/u }).waitFor();
    // The page shown was the one read ahead (no second read of it); the third is now on its way.
    await expect.poll(() => pages.length).toBe(3);
    expect(new Set(pages).size).toBe(3);
  });

  it('reads the events beside the selected one ahead, so "j" shows the next detail without asking again', async () => {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys/${journeyId}?event=${journeyId}_e10`));
    const reads: string[] = [];
    page.on('request', (request) => {
      const match = /\/v1\/events\/([^/?]+)$/u.exec(new URL(request.url()).pathname);
      if (match) reads.push(decodeURIComponent(match[1]!));
    });
    await ui.signIn(page);
    await page.getByRole('heading', { level: 2, name: /step-10 /u }).waitFor();
    await expect.poll(() => reads).toEqual(expect.arrayContaining([`${journeyId}_e9`, `${journeyId}_e10`, `${journeyId}_e11`]));
    await page.keyboard.press('j');
    await page.getByRole('heading', { level: 2, name: /step-11 /u }).waitFor();
    expect(reads.filter((id) => id === `${journeyId}_e11`)).toHaveLength(1);
    // The read ahead moves with the selection.
    await expect.poll(() => reads).toContain(`${journeyId}_e12`);
  });
});
