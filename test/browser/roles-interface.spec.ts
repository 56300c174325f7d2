// The interface by role: a viewer is not offered what the server would refuse, and a page
// reached by its address anyway names the role it needs (and its admins) without a form, a
// spinner or a refused request. The guard fails the test on any 403 or console error.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CLI_ACTOR } from '../../src/audit/audit-log.ts';
import { createUser, grantRole } from '../../src/teams/accounts.ts';
import { useInterface } from './fixture.ts';
import { person, signInAs, signOut } from './people.ts';

const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

async function expectRoleNeeded(page: Page, heading: string, sentence: RegExp): Promise<void> {
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
  const text = await page.locator('.role-needed p').first().textContent();
  expect(text).toMatch(sentence);
  expect(await page.locator('main form').count(), `no form on ${heading}`).toBe(0);
  expect(await page.locator('main .loading').count(), `no spinner on ${heading}`).toBe(0);
}

describe('the interface by role', () => {
  const ui = useInterface();

  it('shows a viewer no Alerts, Members, Audit log or Instance link, and names the role a page needs when reached by its address', { timeout: 120_000 }, async () => {
    const p = ui.demo.projectId;
    await person(ui.db.pool, { [p]: 'admin' }, { email: 'grace@example.com' });
    const viewer = await person(ui.db.pool, { [p]: 'viewer' });
    const { page } = await ui.open('/ui/sign-in');
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await signInAs(page, ui.server.baseUrl, viewer);
      await page.waitForURL(new RegExp(`/ui/projects/${p}/journeys`));
      const header = page.locator('header.top');
      await header.getByRole('link', { name: 'Expectations' }).waitFor();
      expect(await header.getByRole('link', { name: 'Alerts' }).count()).toBe(0);
      expect(await header.getByRole('link', { name: 'Members' }).count()).toBe(0);

      await page.goto(`${ui.server.baseUrl}/ui/projects/${p}/alerts`);
      await expectRoleNeeded(page, 'Alerts', /needs the admin role in this project \(you are a viewer\); its admins are grace@example\.com\./);
      expect(await page.getByText('Your role does not allow this action.').count()).toBe(0);
      await ui.checkAccessibility(page, `the alerts page seen by a viewer at ${size.width} px`);

      await page.goto(`${ui.server.baseUrl}/ui/settings`);
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Settings' });
      expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      expect(await nav.getByRole('link', { name: 'Instance' }).count()).toBe(0);
      expect(await nav.getByRole('link', { name: 'API keys' }).count()).toBe(0);
      for (const [section, heading] of [['api-keys', 'API keys'], ['members', 'Members'], ['environments', 'Environments'], ['destinations', 'Replay destinations']] as const) {
        await page.goto(`${ui.server.baseUrl}/ui/settings/projects/${p}/${section}`);
        await expectRoleNeeded(page, heading, /needs the admin role in this project \(you are a viewer\); its admins are grace@example\.com\./);
      }
      await page.goto(`${ui.server.baseUrl}/ui/settings/instance`);
      await expectRoleNeeded(page, 'Instance', /for owners of this jtrace instance/);
      await page.goto(`${ui.server.baseUrl}/ui/settings/audit-log`);
      await expectRoleNeeded(page, 'Audit log', /needs the admin role in at least one project/);
      await ui.checkAccessibility(page, `the audit log seen by a viewer at ${size.width} px`);
      await signOut(page);
      await page.waitForURL(/\/ui\/sign-in/);
    }
  });

  it('offers a project admin "New link" only for the members whose link they may issue', async () => {
    const p = ui.demo.projectId;
    const admin = await person(ui.db.pool, { [p]: 'admin' });
    // Made by the CLI and granted a role: an owner's claim, so only an owner issues its link.
    const { user } = await createUser(ui.db.pool, { email: 'pending@example.com' }, CLI_ACTOR, Date.now());
    await grantRole(ui.db.pool, p, user.id, 'viewer', CLI_ACTOR);
    const { page } = await ui.open('/ui/sign-in');
    await signInAs(page, ui.server.baseUrl, admin);
    await page.goto(`${ui.server.baseUrl}/ui/settings/projects/${p}/members`);
    const row = page.locator('table.pending tbody tr', { hasText: 'pending@example.com' });
    await row.waitFor();
    expect(await row.getByRole('button', { name: /New link/ }).count()).toBe(0);
    await row.getByText('an owner issues the link').waitFor();
    await ui.checkAccessibility(page, 'the members page seen by a project admin');
  });
});
