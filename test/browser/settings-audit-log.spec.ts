// Settings → Audit log: filter by actor (kept in the address), page with "Load more", read a
// settings change as before → after, and export the same filtered rows as CSV.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordSettingsChange } from '../../src/audit/settings-history.ts';
import { makePerson } from '../../src/teams/test-kit.ts';
import { useInterface } from './fixture.ts';
import { TEST_ADMIN_TOKEN } from './server.ts';

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

async function wideElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.right > width + 1 && !el.closest('.visually-hidden, .skip-link, thead');
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  });
}

describe('Settings: audit log', () => {
  const ui = useInterface();

  it('filters by actor, pages, shows before → after and exports the filtered rows as CSV', { timeout: 120_000 }, async () => {
    const ada = await makePerson(ui.db.pool, { [ui.demo.projectId]: 'admin' }, { email: 'ada@example.com' });
    // Thirty edits by Ada: more than one page.
    for (let i = 0; i < 30; i++) {
      await recordSettingsChange(
        ui.db.pool,
        ui.demo.projectId,
        { action: 'replay_destination.updated', subject: `destination-${i}`, before: { name: `old name ${i}` }, after: { name: `=new name ${i}` } },
        { kind: 'user', userId: ada.id, email: ada.email, clientAddress: '203.0.113.9' },
      );
    }
    // A row by another actor, which the filter must leave out.
    await fetch(`${ui.server.baseUrl}/v1/replay-destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': ui.demo.projectId, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'by the admin token', baseUrl: 'http://127.0.0.1:9', environmentType: 'local', headers: {} }),
    });

    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent('/ui/settings/audit-log'));
    await ui.signIn(page);
    // The page's title is a heading below Settings, the one h1 of the page.
    await page.getByRole('heading', { name: 'Audit log', level: 2 }).waitFor();
    expect(await page.locator('h1').count()).toBe(1);
    await page.locator('table.audit-log tbody tr').first().waitFor();
    expect(await page.locator('table.audit-log').textContent()).toContain('replay_destination.created');

    await page.getByLabel('Actor').fill('ada@example.com');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/ui\/settings\/audit-log\?actor=ada%40example\.com$/);
    const rows = page.locator('table.audit-log tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    expect(await rows.first().textContent()).toContain('name: old name 29 → =new name 29');
    expect(await page.locator('table.audit-log').textContent()).not.toContain('replay_destination.created');
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(30);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

    // The address alone restores the view.
    await page.reload();
    await expect.poll(() => rows.count()).toBe(25);
    expect(await page.getByLabel('Actor').inputValue()).toBe('ada@example.com');

    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await page.waitForTimeout(100);
      expect(await wideElements(page), `audit log at ${size.width} px`).toEqual([]);
      await ui.checkAccessibility(page, `the audit log at ${size.width} px`);
    }
    // WRITE_SCREENSHOTS=1 rewrites the image of the README (1280 px).
    if (process.env.WRITE_SCREENSHOTS === '1') await page.screenshot({ path: 'docs/images/settings-audit-log.png' });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export these rows as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('jtrace-audit-log.csv');
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n').filter((line) => line !== '');
    expect(lines[0]).toBe('"time","kind","action","project","actor","actor_email","actor_key_prefix","client_address","subject","details","before","after"');
    expect(lines).toHaveLength(31);
    expect(lines.slice(1).every((line) => line.includes('"ada@example.com"'))).toBe(true);
    expect(lines[1]).toContain('"{""name"":""=new name 29""}"');
    expect(lines.join('\n')).not.toContain('by the admin token');
  });
});
