import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { adminApi, findLostPhone } from './subjects.ts';

describe('the journey page leads to the loss', () => {
  const ui = useInterface();

  async function open(path: string): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await page.setViewportSize({ width: 1280, height: 800 });
    await ui.signIn(page);
    return page;
  }
  const selected = (page: Page) => new URL(page.url()).searchParams.get('event');

  it('opens on the step that lost the phone, marked on the timeline and the waterfall, with What changed beside it', async () => {
    const { journey, eventId } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    const page = await open(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}`);
    await expect.poll(() => selected(page)).toBe(eventId);
    await page.locator('table.diff').first().waitFor();

    const line = page.locator('.timeline li.event-selected');
    expect(await line.getAttribute('class')).toContain('event-lost');
    expect(await line.locator('.flag-lost').textContent()).toBe('lost customer.phone');
    expect(await page.locator('.waterfall rect.step-lost').count()).toBe(1);
    expect(await page.locator('.waterfall text.bar-label-lost').textContent()).toMatch(/· lost$/);
    expect(await page.locator('.waterfall text.bar-label').count()).toBeGreaterThan(3);
    const ticks = await page.locator('.waterfall text.axis').allTextContents();
    expect(ticks).toHaveLength(5);
    expect(ticks[0]).toBe('0');
    expect(ticks[4]).toMatch(/^\+[\d.]+ (ms|s)$/);

    const changes = (await page.getByRole('region', { name: 'What changed' }).boundingBox())!;
    const detail = (await page.locator('.detail-column').boundingBox())!;
    expect(detail.x).toBeGreaterThanOrEqual(changes.x + changes.width);
    expect(detail.y).toBeLessThan(changes.y + changes.height);
    await ui.checkAccessibility(page, 'a journey opened on its losing step');
  });

  it('links each Where to its step', async () => {
    const { journey, rows } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    const page = await open(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(rows[0]!.id)}`);
    const persist = rows.find((row) => row.name === 'persist')!;
    await page.locator('table.changes tbody tr', { hasText: 'crmId' }).getByRole('link', { name: 'persist' }).click();
    await expect.poll(() => selected(page)).toBe(persist.id);
    await page.getByRole('heading', { name: /crm-writer · persist/ }).waitFor();
  });

  it('shows times with milliseconds, in UTC at the switch', async () => {
    const { journey, rows } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    const page = await open(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(rows[0]!.id)}`);
    const time = page.locator('.timeline li.event time').first();
    await time.waitFor();
    expect(await time.textContent()).toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}/);
    await page.getByRole('button', { name: 'UTC times' }).click();
    const iso = (await time.getAttribute('datetime'))!;
    const utc = `${iso.slice(11, 19)}.${iso.slice(20, 23)}`;
    await expect.poll(() => time.textContent()).toContain(utc);
    expect(await time.textContent()).toMatch(/UTC$/);
    // The choice holds on the next page.
    await page.reload();
    await time.waitFor();
    expect(await time.textContent()).toContain(utc);
    expect(await page.getByRole('button', { name: 'UTC times' }).getAttribute('aria-pressed')).toBe('true');
  });
});
