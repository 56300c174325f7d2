// Every page at a phone's width and a laptop's: nothing is wider than the window, and tables
// become stacked rows on the phone.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { TEST_ADMIN_TOKEN } from './server.ts';
import { adminApi, findKeptPhone, findLostPhone } from './subjects.ts';

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** Elements reaching past the window's right edge (none may), described for the failure message. */
async function overflow(page: Page): Promise<{ scrollWidth: number; clientWidth: number; wide: string[] }> {
  return page.evaluate(() => {
    const clientWidth = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((element) => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.right > clientWidth + 1 && !element.closest('.visually-hidden, .skip-link, thead');
      })
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}: ${element.textContent?.slice(0, 40)}`);
    return { scrollWidth: document.documentElement.scrollWidth, clientWidth, wide };
  });
}

describe('every page at 390 and 1280 px', () => {
  const ui = useInterface();

  it('fits the window at both widths, with stacked rows on a phone', { timeout: 180_000 }, async () => {
    const get = adminApi(ui.server.baseUrl, ui.demo.projectId);
    const { journey, eventId } = await findLostPhone(get);
    const kept = await findKeptPhone(get, journey.entity.type, 'normalize-contact');
    const p = `/ui/projects/${ui.demo.projectId}`;
    const pages: [string, string, string][] = [
      ['journeys', `${p}/journeys?window=week`, 'table.journeys tbody tr'],
      ['failures', `${p}/journeys?window=week&status=failed`, 'table.journeys tbody tr'],
      ['search', `${p}/search?q=${encodeURIComponent(journey.entity.id)}`, 'table.journeys tbody tr'],
      ['a journey and a step diff', `${p}/journeys/${journey.journeyId}?event=${eventId}`, 'table.diff tbody tr'],
      ['a followed field', `${p}/journeys/${journey.journeyId}?field=customer.phone`, '.field-trail li.lost-here'],
      ['compare, choosing', `${p}/compare?a=${journey.journeyId}`, '.compare-pick li'],
      ['compare', `${p}/compare?a=${journey.journeyId}&b=${kept.journeyId}`, 'table.comparison tbody tr'],
      ['expectations', `${p}/expectations`, 'table.settings-table tbody tr'],
      ['alerts', `${p}/alerts`, 'table.settings-table tbody tr'],
      ['an unknown page', `${p}/no-such-page`, 'h1'],
    ];
    // A rule with a long address, so the alerts page shows its table as well as its form.
    const rule = await fetch(`${ui.server.baseUrl}/v1/projects/${ui.demo.projectId}/alert-rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lost phone', kind: 'lost', path: 'customer.phone', threshold: { count: 3, windowMinutes: 10 }, channel: { type: 'webhook', url: 'http://127.0.0.1:9/hooks/jtrace/a-rather-long-path-for-a-phone' } }),
    });
    expect(rule.status).toBe(201);
    const { page } = await ui.open('/ui/sign-in');
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await page.goto(`${ui.server.baseUrl}/ui/sign-in`);
      await page.getByLabel('Admin token').waitFor();
      expect(await overflow(page), `sign-in at ${size.width}`).toMatchObject({ wide: [] });
    }
    await ui.signIn(page);
    for (const [name, path, ready] of pages) {
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        await page.goto(ui.server.baseUrl + path);
        await page.locator(ready).first().waitFor();
        await page.waitForLoadState('networkidle');
        const found = await overflow(page);
        expect(found.wide, `${name} at ${size.width} px`).toEqual([]);
        expect(found.scrollWidth, `${name} at ${size.width} px`).toBeLessThanOrEqual(found.clientWidth);
      }
    }
  });

  it('stacks table rows and a diff’s input over its output on a phone', async () => {
    const { journey, eventId } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys/${journey.journeyId}?event=${eventId}`)}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await ui.signIn(page);
    const row = page.locator('table.diff tbody tr').first();
    await row.waitFor();
    const input = (await row.locator('td[data-label="Input"]').boundingBox())!;
    const output = (await row.locator('td[data-label="Output"]').boundingBox())!;
    expect(output.y).toBeGreaterThanOrEqual(input.y + input.height - 1);
    expect(input.width).toBeGreaterThan(300);
    await ui.checkAccessibility(page, 'a journey at 390 px');

    await page.goto(`${ui.server.baseUrl}/ui/projects/${ui.demo.projectId}/journeys?window=week`);
    const first = page.locator('table.journeys tbody tr').first();
    await first.waitFor();
    const journeyCell = (await first.locator('td').first().boundingBox())!;
    expect(journeyCell.width).toBeGreaterThan(300);
    const status = (await first.locator('td[data-label="Status"]').boundingBox())!;
    expect(status.y).toBeGreaterThan(journeyCell.y);
    await ui.checkAccessibility(page, 'the journeys list at 390 px');
  });
});
