// The Problems interface (docs/problems.md, "In the interface"): the list, a problem's page with
// its status actions for an operator and none for a viewer, Top lost fields leading to
// problems, and the journeys list filtered by a problem; at a laptop's and a phone's width.
import { beforeAll, describe, expect, it } from 'vitest';
import { drainAll, quietAnalyzer } from '../../src/findings/test-kit.ts';
import { DEMO_JOURNEY_COUNT, demoOutcome } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';
import { person, signInAs } from './people.ts';
import { adminApi } from './subjects.ts';
import { problemScreenshot, problemsOf, WIDTHS, type ListedProblem } from './problems.ts';

describe('problems in the browser', () => {
  const ui = useInterface();
  let phone: ListedProblem;

  beforeAll(async () => {
    const analyzer = quietAnalyzer(ui.db.pool);
    await drainAll(analyzer, ui.db.pool);
    await analyzer.stop();
    const lost = await problemsOf(adminApi(ui.server.baseUrl, ui.demo.projectId), ui.demo.projectId, 'kind=lost');
    phone = lost.find((p) => p.path === 'customer.phone' && !p.inTransit && p.step?.name === 'normalize-contact')!;
    expect(phone, 'the demo loses customer.phone at normalize-contact').toBeDefined();
  });

  async function operatorPage(role: 'operator' | 'viewer', path: string): Promise<Awaited<ReturnType<typeof ui.open>>> {
    const who = await person(ui.db.pool, { [ui.demo.projectId]: role });
    const opened = await ui.open('/ui/sign-in');
    // A server without the batch replay routes answers 404: the verification stays away quietly.
    opened.guard.expectResponse(404, /\/problems\/[^/]+\/replays$/, 10);
    await signInAs(opened.page, ui.server.baseUrl, who, path);
    return opened;
  }

  it('opens on the Problems page, with sparklines, counts, releases, filters, sorts and the regressed standing out', { timeout: 120_000 }, async () => {
    const { page } = await ui.open('/ui/sign-in');
    await ui.signIn(page);
    // Open problems exist: the project opens on them rather than on the journeys.
    await page.waitForURL(new RegExp(`/ui/projects/${ui.demo.projectId}/problems$`));
    const table = page.locator('table.problems');
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await table.locator('tbody tr').first().waitFor();
      const row = table.locator('tbody tr', { has: page.getByRole('link', { name: 'lost customer.phone at normalize-contact' }) });
      await row.locator('svg.sparkline polyline').waitFor();
      expect(await row.locator('td[data-label="Journeys"]').textContent()).toBe(String(phone.journeys));
      expect(await row.locator('svg.sparkline').getAttribute('aria-label')).toMatch(new RegExp(`^${phone.journeys} journeys in the last 7 days`));
      expect(await row.locator('td[data-label="Status"]').textContent()).toBe('open');
      expect(await page.locator('header.top').getByRole('link', { name: 'Problems' }).getAttribute('aria-current')).toBe('page');
      await ui.checkAccessibility(page, `the problems page at ${size.width} px`);
      await problemScreenshot(page, `problems-${size.width}`);
    }
    await page.setViewportSize(WIDTHS[0]!);

    // The biggest first by default; sorted by last seen on request, in the address.
    const counts = (await table.locator('td[data-label="Journeys"]').allTextContents()).map(Number);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    await page.getByLabel('Sort').selectOption('lastSeen');
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('lastSeen');
    await page.getByLabel('Kind').selectOption('overdue');
    await expect.poll(() => new URL(page.url()).searchParams.get('kind')).toBe('overdue');
    await expect.poll(async () => (await table.locator('tbody tr a.problem-link').allTextContents()).every((t) => t.startsWith('overdue'))).toBe(true);
    await page.getByLabel('Kind').selectOption('');
    await page.getByLabel('Status').selectOption('expected');
    await page.getByRole('status').filter({ hasText: 'No problem matches these filters.' }).waitFor();

    // A regressed problem stands out in the list (its state as the analyzer leaves it after a regression).
    await ui.db.pool.query(`UPDATE problems SET status = 'regressed', regressed_at = now(), regressed_release = '2.0.0' WHERE id = $1`, [phone.id]);
    await page.getByLabel('Status').selectOption('regressed');
    const regressed = table.locator('tbody tr.problem-regressed-row');
    await regressed.waitFor();
    expect(await regressed.locator('.problem-regressed').textContent()).toBe('regressed');
    expect(await regressed.locator('td[data-label="Status"]').textContent()).toBe('regressedin 2.0.0');
    await ui.checkAccessibility(page, 'a regressed problem in the list');
    await ui.db.pool.query(`UPDATE problems SET status = 'open', regressed_at = NULL, regressed_release = NULL WHERE id = $1`, [phone.id]);
  });

  it('shows a problem to an operator with its timeline, place, examples and releases, and changes its status', { timeout: 120_000 }, async () => {
    const path = `/ui/projects/${ui.demo.projectId}/problems/${phone.id}`;
    const { page } = await operatorPage('operator', path);
    await page.getByRole('heading', { level: 1, name: 'lost customer.phone at normalize-contact' }).waitFor();
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      const timeline = page.getByRole('region', { name: 'Timeline' });
      expect(await timeline.locator('svg').getAttribute('aria-label')).toMatch(new RegExp(`^${phone.journeys} journeys in the last 7 days`));
      await timeline.getByRole('button', { name: 'Daily, over retention' }).click();
      expect(await timeline.locator('svg').getAttribute('aria-label')).toMatch(new RegExp(`^${phone.journeys} journeys over the retention period`));
      await timeline.getByRole('button', { name: 'Hourly, last 7 days' }).click();
      const place = page.getByRole('list', { name: 'Where it happens' });
      expect(await place.locator('li.event-lost').textContent()).toContain('normalize-contact');
      expect(await place.locator('.flag-lost').textContent()).toBe('lost customer.phone');
      const examples = page.getByRole('region', { name: 'Example journeys' });
      const latest = examples.getByRole('link').first();
      expect(await latest.getAttribute('href')).toMatch(new RegExp(`/ui/projects/${ui.demo.projectId}/journeys/jrn_demo_\\d+$`));
      expect(await page.getByRole('region', { name: 'Releases' }).locator('tbody tr').count()).toBeGreaterThan(0);
      await ui.checkAccessibility(page, `a problem's page at ${size.width} px`);
      await problemScreenshot(page, `problem-${size.width}`);
    }
    await page.setViewportSize(WIDTHS[0]!);

    const actions = page.getByRole('region', { name: 'Status' });
    await actions.getByRole('button', { name: 'Resolve', exact: true }).click();
    await actions.getByRole('status').filter({ hasText: 'Resolved: it reopens as regressed if it happens again.' }).waitFor();
    expect(await page.locator('.page-heading .problem-status').textContent()).toBe('resolved');

    // Marking expected hides it from every list: confirmed first, then announced.
    await actions.getByRole('button', { name: 'Mark expected…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Mark the problem expected?' });
    await dialog.waitFor();
    await ui.checkAccessibility(page, 'the confirmation of marking a problem expected');
    await dialog.getByRole('button', { name: 'Mark expected' }).click();
    await actions.getByRole('status').filter({ hasText: 'Marked expected' }).waitFor();
    expect(await page.locator('.page-heading .problem-status').textContent()).toBe('expected');

    await actions.getByRole('button', { name: 'Reopen' }).click();
    await actions.getByRole('status').filter({ hasText: 'Reopened: the problem is open.' }).waitFor();
    expect(await page.locator('.page-heading .problem-status').textContent()).toBe('open');

    // Ignored for N more journeys, as the server stores it.
    await actions.getByLabel('for N more journeys').check();
    await actions.getByRole('spinbutton', { name: 'Journeys' }).fill('5');
    await actions.getByRole('button', { name: 'Ignore…' }).click();
    await page.getByRole('dialog', { name: 'Ignore the problem?' }).getByRole('button', { name: 'Ignore' }).click();
    await actions.getByRole('status').filter({ hasText: 'Ignored' }).waitFor();
    const stored = await problemsOf(adminApi(ui.server.baseUrl, ui.demo.projectId), ui.demo.projectId, 'status=ignored');
    expect(stored.map((p) => [p.id, p.ignore?.moreJourneys])).toEqual([[phone.id, 5]]);
    await actions.getByRole('button', { name: 'Reopen' }).click();
    await actions.getByRole('status').filter({ hasText: 'Reopened' }).waitFor();
  });

  it('shows a viewer the problem without any status action or verification', { timeout: 120_000 }, async () => {
    const { page } = await operatorPage('viewer', `/ui/projects/${ui.demo.projectId}/problems/${phone.id}`);
    await page.getByRole('heading', { level: 1, name: 'lost customer.phone at normalize-contact' }).waitFor();
    await page.getByRole('region', { name: 'Releases' }).waitFor();
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      expect(await page.getByRole('region', { name: 'Status' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Resolve|Ignore|Reopen|Mark expected/ }).count()).toBe(0);
      expect(await page.getByRole('region', { name: 'Verify a fix' }).count()).toBe(0);
      await ui.checkAccessibility(page, `a problem's page seen by a viewer at ${size.width} px`);
    }
  });

  it('lists lost problems as Top lost fields, each leading to its page, and filters the journeys by a problem', { timeout: 120_000 }, async () => {
    const lostAtNormalize = Array.from({ length: DEMO_JOURNEY_COUNT }, (_, i) => i).filter((i) => demoOutcome(i) === 'phone-lost');
    const { page, guard } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys`)}`);
    guard.expectResponse(404, /\/problems\/[^/]+\/replays$/, 10);
    await ui.signIn(page);
    const panel = page.getByRole('region', { name: 'Top lost fields' });
    await panel.waitFor();
    // One row per place: the loss at a step and the loss in transit are two rows.
    const rows = await panel.locator('li').allTextContents();
    expect(rows.filter((t) => t.startsWith('customer.phone')).length).toBeGreaterThanOrEqual(2);
    expect(rows.find((t) => t.includes('at normalize-contact'))).toContain(`${phone.journeys} journeys`);
    await ui.checkAccessibility(page, 'the top lost fields panel');
    await panel.locator('li', { hasText: 'at normalize-contact' }).getByRole('link', { name: 'customer.phone' }).click();
    await page.getByRole('heading', { level: 1, name: 'lost customer.phone at normalize-contact' }).waitFor();

    await page.locator('.problem-facts').getByRole('link', { name: /journeys?$/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('problem')).toBe(phone.id);
    const table = page.locator('table.problem-journeys');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(lostAtNormalize.length);
    const linked = (await table.locator('a.journey-link').allTextContents()).sort();
    expect(linked).toEqual(lostAtNormalize.map((i) => `jrn_demo_${1001 + i}`).sort());
    await ui.checkAccessibility(page, 'the journeys with a problem');
  });
});
