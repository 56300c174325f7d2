import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_JOURNEY_COUNT } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';

/** Milliseconds of a duration as the list prints it ("650 ms", "1.82 s", "17.5 s", "1 min 5 s"). */
function ms(text: string): number {
  const minutes = /(\d+) min/.exec(text);
  const seconds = /([\d.]+) s\b/.exec(text);
  const millis = /(\d+) ms/.exec(text);
  return (minutes ? Number(minutes[1]) * 60_000 : 0) + (seconds ? Number(seconds[1]) * 1000 : 0) + (millis ? Number(millis[1]) : 0);
}

describe('the journeys list', () => {
  const ui = useInterface();

  async function list(query: string): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys${query}`));
    await ui.signIn(page);
    await page.locator('table.journeys tbody tr').first().waitFor();
    return page;
  }

  it('shows each journey’s duration, the total, and does not repeat the entity id its label names', async () => {
    const page = await list('?window=week');
    await expect.poll(() => page.locator('.list-total').textContent()).toContain(`${DEMO_JOURNEY_COUNT} journeys match`);
    const first = page.locator('table.journeys tbody tr').first();
    expect(await first.locator('td[data-label="Duration"]').textContent()).toMatch(/\d+(\.\d+)? (ms|s)/);
    const title = await first.locator('a.journey-link').textContent();
    const entityId = /contact-\d+/.exec(title!)![0];
    expect(await first.locator('.sub').textContent()).not.toContain(entityId);
    await ui.checkAccessibility(page, 'the journeys list with its total and durations');
  });

  it('sorts by duration and by start, and keeps the order in the URL', async () => {
    const page = await list('?window=week');
    await page.getByRole('button', { name: 'Duration' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('duration');
    const durations = (await page.locator('table.journeys td[data-label="Duration"]').allTextContents()).map(ms);
    expect(durations).toHaveLength(DEMO_JOURNEY_COUNT);
    expect(durations).toEqual([...durations].sort((a, b) => b - a));
    expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('Duration');

    await page.getByRole('button', { name: 'Started' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('start');
    const started = await page.locator('table.journeys td[data-label="Started"] time').evaluateAll((times) => times.map((t) => Date.parse(t.getAttribute('datetime')!)));
    expect(started).toEqual([...started].sort((a, b) => b - a));

    await page.reload();
    await page.locator('th[aria-sort="descending"]', { hasText: 'Started' }).waitFor();
    await page.getByRole('button', { name: 'Last activity' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe(null);
  });
});
