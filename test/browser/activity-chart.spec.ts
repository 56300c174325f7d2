import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';

describe('the activity chart', () => {
  const ui = useInterface();

  async function list(query = ''): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys${query}`));
    await ui.signIn(page);
    await page.locator('table.journeys tbody tr').first().waitFor();
    return page;
  }
  const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);
  const barsWithJourneys = (page: Page) => page.locator('.chart g.bucket').filter({ has: page.locator('rect.bar-completed, rect.bar-active, rect.bar-failed') }).count();

  it('draws a default window where the activity is, with a labelled time axis', async () => {
    const page = await list();
    await page.locator('.chart-zoom').waitFor();
    // The demo's journeys end a second apart: spread over many bars, not one at the edge.
    await expect.poll(() => barsWithJourneys(page)).toBeGreaterThan(10);
    const ticks = await page.locator('.chart-axis span').allTextContents();
    expect(ticks).toHaveLength(5);
    for (const tick of ticks) expect(tick).toMatch(/\d{1,2}:\d{2}/);
    await ui.checkAccessibility(page, 'the journeys list with its chart');

    await page.getByRole('button', { name: 'Draw the whole window' }).click();
    await expect.poll(() => barsWithJourneys(page)).toBeLessThanOrEqual(2);
  });

  it('reads a bar’s counts on hover and by keyboard, and narrows the window to it', async () => {
    const page = await list('?window=hour');
    const readout = page.locator('.chart-readout');
    const bar = page.locator('.chart g.bucket').filter({ has: page.locator('rect.bar-completed') }).last();
    const barBox = (await bar.locator('rect.bar-hit').boundingBox())!;
    await page.mouse.move(barBox.x + barBox.width / 2, barBox.y + barBox.height / 2);
    await expect.poll(() => readout.textContent()).toMatch(/: \d+ completed, \d+ active, \d+ failed$/);

    await page.locator('.chart-plot').focus();
    await page.keyboard.press('End');
    await expect.poll(() => readout.textContent()).toMatch(/: \d+ completed, \d+ active, \d+ failed$/);
    await page.keyboard.press('ArrowLeft');
    const left = await readout.textContent();
    await page.keyboard.press('Enter');
    await expect.poll(() => param(page, 'window')).toBe('custom');
    const since = Date.parse(param(page, 'since')!);
    const until = Date.parse(param(page, 'until')!);
    expect(until - since).toBeLessThanOrEqual(60_000 + 1000);
    expect(left).toMatch(/completed/);
  });

  it('narrows the window to the bars dragged across', async () => {
    const page = await list('?window=hour');
    const box = (await page.locator('.chart svg').boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.5, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.7, y, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.99, y, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => param(page, 'window')).toBe('custom');
    const span = Date.parse(param(page, 'until')!) - Date.parse(param(page, 'since')!);
    expect(span).toBeGreaterThan(20 * 60_000);
    expect(span).toBeLessThan(35 * 60_000);
    await page.locator('table.journeys tbody tr').first().waitFor();
    expect(await page.getByLabel('Window').inputValue()).toBe('custom');
  });
});
