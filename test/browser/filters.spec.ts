import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';

/** `YYYY-MM-DDTHH:MM` in the browser's time zone, as a datetime-local input takes it. */
async function localValue(page: Page, time: number): Promise<string> {
  return page.evaluate((t) => {
    const d = new Date(t);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }, time);
}

describe('the journeys filter bar', () => {
  const ui = useInterface();

  async function journeysPage(query = ''): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys${query}`));
    await ui.signIn(page);
    await page.locator('table.journeys tbody tr').first().waitFor();
    return page;
  }
  const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);

  it('shows the values just applied and sends them again with the next change', async () => {
    const page = await journeysPage();
    await page.getByLabel('Window').selectOption('hour');
    await expect.poll(() => param(page, 'window')).toBe('hour');
    await expect.poll(() => page.getByLabel('Window').inputValue()).toBe('hour');

    await page.getByLabel('Status').selectOption('completed');
    await expect.poll(() => param(page, 'status')).toBe('completed');
    expect(param(page, 'window')).toBe('hour');
    await expect.poll(() => page.getByLabel('Status').inputValue()).toBe('completed');
    expect(await page.getByLabel('Window').inputValue()).toBe('hour');

    const contains = page.getByRole('searchbox', { name: 'Contains' });
    await contains.fill('contact-10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => param(page, 'q')).toBe('contact-10');
    await contains.fill('contact-1001');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => param(page, 'q')).toBe('contact-1001');
    await expect.poll(() => contains.inputValue()).toBe('contact-1001');
    expect(param(page, 'window')).toBe('hour');
    expect(param(page, 'status')).toBe('completed');
  });

  it('applies a custom time range from its From and To', async () => {
    const page = await journeysPage('?window=week');
    await page.getByLabel('Window').selectOption('custom');
    // Choosing "Custom…" waits for the range rather than applying the whole day.
    const from = page.getByLabel('From', { exact: true });
    await from.waitFor();
    expect(param(page, 'window')).toBe('week');
    const now = Date.now();
    const since = await localValue(page, now - 2 * 3_600_000);
    const until = await localValue(page, now + 3_600_000);
    await from.fill(since);
    await page.getByLabel('To', { exact: true }).fill(until);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => param(page, 'window')).toBe('custom');
    const sentSince = param(page, 'since')!;
    const sentUntil = param(page, 'until')!;
    expect(await localValue(page, Date.parse(sentSince))).toBe(since);
    expect(await localValue(page, Date.parse(sentUntil))).toBe(until);
    await expect.poll(() => page.getByLabel('Window').inputValue()).toBe('custom');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(since);
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(until);
    await page.locator('table.journeys tbody tr').first().waitFor();
    const chart = await page.getByRole('img', { name: /Journeys from/ }).getAttribute('aria-label');
    expect(chart).not.toMatch(/ 0 completed, 0 active, 0 failed/);
  });
});
