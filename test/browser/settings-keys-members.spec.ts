// Settings, API keys and members, in the browser: a key is made and its secret shown once (a
// reload does not show it again), copied, then revoked after a confirmation that names it, and
// ingestion with it answers 401; a person is invited, listed as pending, given a new link and
// another role (kept in the history), then removed. Both pages fit 390 and 1280 px.
// With WRITE_SCREENSHOTS=1 the run also writes docs/images/settings-api-keys.png and settings-members.png.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { listSettingsChanges } from '../../src/audit/settings-history.ts';
import { envelope } from '../../src/deletion/test-fixtures.ts';
import { useInterface } from './fixture.ts';

const IMAGES = path.resolve(import.meta.dirname, '../../docs/images');
const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

async function fitsWindow(page: Page, what: string): Promise<void> {
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    const found = await page.evaluate(() => {
      const clientWidth = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().right > clientWidth + 1 && !e.closest('.visually-hidden, .skip-link, thead'))
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
        .slice(0, 5);
      return { wide, scrollWidth: document.documentElement.scrollWidth, clientWidth };
    });
    expect(found.wide, `${what} at ${size.width} px`).toEqual([]);
    expect(found.scrollWidth, `${what} at ${size.width} px`).toBeLessThanOrEqual(found.clientWidth);
  }
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.WRITE_SCREENSHOTS !== '1') return;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(IMAGES, name), fullPage: true });
}

describe('Settings: API keys and members', () => {
  const ui = useInterface();
  const sendEvent = (apiKey: string) =>
    fetch(`${ui.server.baseUrl}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(envelope({ journeyId: 'j-settings-key', entityId: 'customer-9', environment: 'staging' })),
    });

  it('makes a key and shows it once, copies it, revokes it after naming it, and ingestion with it answers 401', { timeout: 120_000 }, async () => {
    await ui.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.server.baseUrl });
    const keysPath = `/ui/settings/projects/${ui.demo.projectId}/api-keys`;
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(keysPath)}`);
    await ui.signIn(page);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('table', { name: 'Active keys' }).waitFor();
    await ui.checkAccessibility(page, 'the API keys page');

    await page.getByLabel('Name').fill('Checkout service');
    await page.getByLabel('Environment', { exact: true }).selectOption({ label: 'A new environment…' });
    await page.getByLabel('New environment name').fill('staging');
    await page.getByRole('button', { name: 'Make key' }).click();
    const secretBox = page.getByLabel('API key', { exact: true });
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^jtk_[A-Za-z0-9_-]{32}$/);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await ui.checkAccessibility(page, 'the API keys page with a new secret');
    await fitsWindow(page, 'the API keys page with a new secret');
    await screenshot(page, 'settings-api-keys.png');
    expect((await sendEvent(secret)).status).toBe(202);

    // A reload shows the key's row, never its secret.
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'Checkout service' });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(1).textContent()).toBe(secret.slice(0, 12));
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Without the Clipboard API the page says how to copy by hand.
    await page.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }));
    await page.getByLabel('Name').fill('Second key');
    await page.getByRole('button', { name: 'Make key' }).click();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('copy it by hand').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);

    // The confirmation names the key, takes the focus, and Escape leaves the key alone.
    await row.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: /Revoke the key “Checkout service”/ });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(secret.slice(0, 12));
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await ui.checkAccessibility(page, 'the revoke confirmation');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await sendEvent(secret)).status).toBe(202);

    await row.getByRole('button', { name: /Revoke/ }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('table', { name: 'Revoked keys' }).getByRole('cell', { name: 'Checkout service' }).waitFor();
    expect((await sendEvent(secret)).status).toBe(401);
    await ui.checkAccessibility(page, 'the API keys page with a revoked key');
    await fitsWindow(page, 'the API keys page');
  });

  it('invites a person, lists the pending invitation, re-issues the link, changes the role and removes them', { timeout: 120_000 }, async () => {
    // The old address of the members page leads to Settings.
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/members`)}`);
    await ui.signIn(page);
    await page.waitForURL(new RegExp(`/ui/settings/projects/${ui.demo.projectId}/members$`));
    await page.getByRole('heading', { name: 'Invite a person' }).waitFor();
    await ui.checkAccessibility(page, 'the members page');

    await page.getByLabel('E-mail').fill('lin@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('operator');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.locator('output.invite-link').textContent())!;
    expect(link).toMatch(/\/ui\/set-password#token=[A-Za-z0-9_-]{43}$/);
    const pending = page.getByRole('table', { name: /Invited/ });
    const pendingRow = pending.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'lin@example.com' }) });
    await pendingRow.getByText(/valid until/).waitFor();
    await ui.checkAccessibility(page, 'the members page with a pending invitation');
    await fitsWindow(page, 'the members page');
    await screenshot(page, 'settings-members.png');

    await pendingRow.getByRole('button', { name: 'New link for lin@example.com' }).click();
    const reissued = (await page.locator('output.reissued-link').textContent())!;
    expect(reissued).toMatch(/\/ui\/set-password#token=[A-Za-z0-9_-]{43}$/);
    expect(reissued).not.toBe(link);

    await page.getByLabel('Role of lin@example.com').selectOption('admin');
    await page.getByText('lin@example.com is now admin.').waitFor();
    const changes = await listSettingsChanges(ui.db.pool, ui.demo.projectId);
    expect(changes[0]).toMatchObject({ action: 'member.role_changed', subject: 'lin@example.com', before: { role: 'operator' }, after: { role: 'admin' } });

    await page.getByRole('button', { name: 'Remove… lin@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove lin@example.com from' + ' ' + (await projectName(page)) + '?' });
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await page.getByText('lin@example.com was removed.').waitFor();
    await page.getByRole('cell', { name: 'lin@example.com', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('rowheader', { name: 'lin@example.com' }).waitFor({ state: 'detached' });
    await ui.checkAccessibility(page, 'the members page after a removal');
  });
});

async function projectName(page: Page): Promise<string> {
  return (await page.locator('.settings-project-name').textContent())!.trim();
}
