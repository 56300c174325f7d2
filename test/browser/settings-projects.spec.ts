// Settings in the browser: Projects (create, rename), Environments (change capture mode and
// retention and see the history row; add an environment; the live preview shows a redacted field; full-payload
// refused with its reason) and Instance (version and checks). Each page at 390 and 1280 px, with
// no console error, CSP violation or axe finding. With UPDATE_SCREENSHOTS=1 the pages are also
// written to docs/images/settings-*.png at 1280 px.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/audit-log.ts';
import { useInterface } from './fixture.ts';

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];
const IMAGES = path.resolve(import.meta.dirname, '../../docs/images');

/** Elements reaching past the window's right edge (as widths.spec.ts measures them). */
async function wide(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const clientWidth = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((element) => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.right > clientWidth + 1 && !element.closest('.visually-hidden, .skip-link, thead');
      })
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}: ${element.textContent?.slice(0, 40)}`);
  });
}

/** The page at both widths: nothing wider than the window, no axe finding; a screenshot at 1280 when asked. */
async function atBothWidths(ui: ReturnType<typeof useInterface>, page: Page, what: string, screenshot: string): Promise<void> {
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    await page.waitForLoadState('networkidle');
    expect(await wide(page), `${what} at ${size.width} px`).toEqual([]);
    await ui.checkAccessibility(page, `${what} at ${size.width} px`);
  }
  if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: path.join(IMAGES, screenshot) });
}

describe('Settings: projects, environments and the instance', () => {
  const ui = useInterface();

  it('creates a project and renames it on the Projects page', async () => {
    const { page, guard } = await ui.open('/ui/sign-in?next=/ui/settings/projects');
    guard.expectResponse(409, /^\/ui\/api\/v1\/projects$/);
    await ui.signIn(page);
    await page.getByRole('heading', { name: 'Projects', level: 2 }).waitFor();
    const create = page.getByRole('form', { name: 'Create a project' });
    await create.getByLabel('Name').fill('Billing');
    await create.getByLabel('Slug').fill('billing');
    await create.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('status').filter({ hasText: 'Created Billing' }).waitFor();
    const rename = page.getByRole('form', { name: 'Rename billing' });
    await rename.waitFor();
    await rename.getByLabel('New name of billing').fill('Billing and invoices');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('link', { name: 'Billing and invoices' }).waitFor();
    await atBothWidths(ui, page, 'the projects page', 'settings-projects.png');
    // A taken slug is refused with the server's reason.
    await create.getByLabel('Name').fill('Again');
    await create.getByLabel('Slug').fill('billing');
    await create.getByRole('button', { name: 'Create project' }).click();
    await create.getByRole('alert').filter({ hasText: 'slug' }).waitFor();
  });

  it('previews a redacted field, then changes capture mode and retention and shows the history row', async () => {
    const audits = (await listAudit(ui.db.pool, ui.demo.projectId)).length;
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/settings/projects/${ui.demo.projectId}/environments`)}`);
    await ui.signIn(page);
    const form = page.getByRole('form', { name: 'Settings of production' });
    await form.waitFor();
    // full-payload is refused on this server, and the page says why.
    expect(await form.locator('option[value="full-payload"]').isDisabled()).toBe(true);
    await form.getByText('ALLOW_FULL_PAYLOAD_CAPTURE=true').waitFor();

    // The preview of one of the environment's recent events, then of a pasted event, under a
    // rule typed and not saved.
    await page.getByLabel('Recent event', { exact: true }).waitFor();
    await page.locator('.preview-result p').filter({ hasText: 'Captured as redacted-payload' }).waitFor();
    await page.getByLabel('A pasted event').check();
    await form.getByLabel('Redaction rules, one per line').fill('customer.plan');
    const result = page.locator('.preview-result pre').first();
    await expect.poll(async () => (await result.textContent()) ?? '', { timeout: 10_000 }).toContain('"plan": "[REDACTED]"');
    expect(await result.textContent()).toContain('"email": "ada@example.com"');
    expect(await result.textContent()).toContain('"password": "[REDACTED]"');
    await atBothWidths(ui, page, 'the environments page', 'settings-environments.png');
    await form.getByRole('button', { name: 'Discard changes' }).click();

    await form.getByLabel('Capture mode').selectOption('metadata-only');
    await form.getByLabel('Retention (days)').fill('14');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const row = page.getByRole('region', { name: 'History of production' }).locator('tbody tr').first();
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text).toContain('captureMode: redacted-payload → metadata-only');
    expect(text).toMatch(/retentionDays: \d+ → 14/);
    expect(text).toContain('the admin token');
    // After a reload the saved settings and the row are still there.
    await page.reload();
    await form.waitFor();
    expect(await form.getByLabel('Capture mode').inputValue()).toBe('metadata-only');
    await page.getByRole('region', { name: 'History of production' }).locator('tbody tr').first().waitFor();
    // A new environment opens on its own form, its creation in its history.
    const add = page.getByRole('form', { name: 'Add an environment' });
    await add.getByLabel('Name, as events will carry it').fill('staging');
    await add.getByLabel(/^Retention/).fill('7');
    await add.getByRole('button', { name: 'Add environment' }).click();
    await page.waitForURL(/\/environments\/staging$/);
    const staging = page.getByRole('form', { name: 'Settings of staging' });
    expect(await staging.getByLabel('Retention (days)').inputValue()).toBe('7');
    expect(await page.getByRole('region', { name: 'History of staging' }).locator('tbody tr').first().textContent()).toContain('retentionDays: — → 7');
    // Settings changes write no audit row (interface spec 6).
    expect((await listAudit(ui.db.pool, ui.demo.projectId)).length).toBe(audits);
  });

  it('shows the version, migrations, key rotation and checks on the Instance page', async () => {
    const { page } = await ui.open('/ui/sign-in?next=/ui/settings/instance');
    await ui.signIn(page);
    await page.getByRole('heading', { name: 'Instance', level: 2 }).waitFor();
    await page.getByRole('link', { name: 'Instance' }).waitFor();
    const facts = (await page.locator('.instance-facts').textContent())!;
    expect(facts).toMatch(/Version\d+\.\d+\.\d+/);
    expect(facts).toContain('up to date');
    const checks = await page.locator('.instance-checks li strong').allTextContents();
    expect(checks).toEqual(['database', 'role', 'migrations', 'keys']);
    await page.getByText('Everything rotate:reencrypt moves is under the current key.').waitFor();
    await atBothWidths(ui, page, 'the instance page', 'settings-instance.png');
  });
});
