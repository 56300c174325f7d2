import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { drainAll, quietAnalyzer } from '../../src/findings/test-kit.ts';
import { DEMO_JOURNEY_COUNT, DEMO_STALLED_JOURNEY, demoOutcome } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';
import { expectSettingsLayout, formLayout, settingsFormLayout, type FormLayout } from './form-layout.ts';

/** Findings in the interface over the demo, analysed once as the server's analyzer would. */
describe('findings in the browser', () => {
  const ui = useInterface();
  const lostPhone = Array.from({ length: DEMO_JOURNEY_COUNT }, (_, i) => i).filter((i) => ['phone-lost', 'phone-dropped'].includes(demoOutcome(i)));

  beforeAll(async () => {
    const analyzer = quietAnalyzer(ui.db.pool);
    await drainAll(analyzer, ui.db.pool);
    await analyzer.stop();
  });

  async function signedIn(path: string): Promise<{ page: Page; guard: Awaited<ReturnType<typeof ui.open>>['guard'] }> {
    const opened = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(opened.page);
    return opened;
  }

  /** The form laid out as the settings forms are, at a phone's width and a laptop's; the page is left at the laptop's. */
  async function expectFormLikeSettings(page: Page, form: string, what: string): Promise<void> {
    const { page: settings } = await ui.open('/ui/');
    for (const width of [390, 1280]) {
      await settings.setViewportSize({ width, height: 900 });
      const reference: FormLayout = await settingsFormLayout(settings, ui.server.baseUrl);
      await page.setViewportSize({ width, height: 900 });
      expectSettingsLayout(await formLayout(page.getByRole('form', { name: form })), reference, `${what} at ${width} px`);
    }
  }

  it('shows a findings column and filters the list by finding', async () => {
    const { page } = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys`);
    const table = page.locator('table.journeys');
    await table.waitFor();
    expect(await table.locator('thead th').allTextContents()).toContain('Findings');
    await expect.poll(() => table.locator('.findings-cell').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('lost customer.phone at normalize-contact')]));
    await ui.checkAccessibility(page, 'the journeys list with findings');

    await page.getByLabel('Findings').selectOption('overdue');
    await expect.poll(() => new URL(page.url()).searchParams.get('finding')).toBe('overdue');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.locator('tbody tr').first().locator('.findings-cell li').first().textContent()).toBe('overdue');
    expect(await table.locator('tbody tr a.journey-link').first().getAttribute('href')).toContain(`jrn_demo_${1001 + DEMO_STALLED_JOURNEY}`);
  });

  // Top lost fields lists lost problems, each leading to its page: test/browser/problems.spec.ts.

  it('marks findings on the journey page and opens on the losing step', async () => {
    const i = lostPhone.find((n) => demoOutcome(n) === 'phone-lost')!;
    const { page } = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/jrn_demo_${1001 + i}`);
    // The losing step (normalize-contact, the second event) is selected on open.
    await expect.poll(() => new URL(page.url()).searchParams.get('event')).toBe(`evt_demo_${1001 + i}_02`);
    const findings = page.getByRole('region', { name: 'Findings' });
    await findings.waitFor();
    expect(await findings.textContent()).toContain('lost customer.phone at normalize-contact');
    expect(await page.locator('.timeline .finding-marker').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('customer.phone')]));
    expect(await page.locator('.waterfall .step-lost').count()).toBeGreaterThan(0);
    await ui.checkAccessibility(page, 'a journey with findings');
  });

  it('shows, suggests and saves expectations', async () => {
    const { page } = await signedIn(`/ui/projects/${ui.demo.projectId}/expectations`);
    const saved = page.locator('table.settings-table');
    await saved.waitFor();
    expect(await saved.locator('tbody tr').first().textContent()).toContain('contact');
    await ui.checkAccessibility(page, 'the expectations page');
    await expectFormLikeSettings(page, 'Expectation', 'the expectation form');
    await page.getByLabel('Entity type').fill('contact');
    await page.getByRole('button', { name: 'Suggest from history' }).click();
    await expect.poll(() => page.getByRole('status').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^Suggested from \d+ completed journeys/)]));
    expect(await page.getByLabel('Final step').inputValue()).toBe('complete');
    await page.getByLabel('Final step').fill('deliver');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Saved the expectation of contact')]));
  });

  it('creates an alert rule, shows its secret once, mutes it and shows its delivery log', async () => {
    const { page, guard } = await signedIn(`/ui/projects/${ui.demo.projectId}/alerts`);
    await page.getByRole('status').filter({ hasText: 'No alert rule yet.' }).waitFor();
    await ui.checkAccessibility(page, 'the alerts page');
    await expectFormLikeSettings(page, 'New alert rule', 'the new-rule form');
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name').fill('Lost phone');
    await form.getByLabel('Field path (optional)').fill('customer.phone');
    await form.getByLabel('URL').fill('http://example.com/hook');
    guard.expectResponse(400, /alert-rules$/);
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('The host is not in ALERT_ALLOWED_HOSTS.').waitFor();
    await form.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await form.getByRole('button', { name: 'Create rule' }).click();
    const secret = page.getByLabel('Signing secret');
    await secret.waitFor();
    expect(await secret.inputValue()).toMatch(/^whsec_/);
    const row = page.locator('table.settings-table tbody tr', { hasText: 'Lost phone' });
    await row.getByRole('button', { name: 'Mute 1 hour' }).click();
    await expect.poll(() => row.textContent()).toContain('muted until');
    await row.getByRole('button', { name: /Delivery log/ }).click();
    await page.getByRole('heading', { name: 'Delivery log of Lost phone' }).waitFor();
    await ui.checkAccessibility(page, 'an alert rule and its delivery log');
  });
});
