// A team in the browser: an admin invites a person as a viewer of one project, the person opens
// the one-time link, sets a password, signs in with it and sees only that project, without the
// Replay panel or the Delete button.
import { describe, expect, it } from 'vitest';
import { createProject } from '../../src/projects/projects-sql.ts';
import { useInterface } from './fixture.ts';
import { signOut } from './people.ts';
import { adminApi, findLostPhone } from './subjects.ts';

describe('a team in the browser', () => {
  const ui = useInterface();

  it('invites a viewer who sets a password, signs in and sees only the granted project, read-only', async () => {
    await createProject(ui.db.pool, 'private', 'Private project');
    const { page } = await ui.open('/ui/sign-in');
    await ui.signIn(page);
    await page.goto(`${ui.server.baseUrl}/ui/projects/${ui.demo.projectId}/members`);
    await page.getByRole('heading', { name: 'Invite a person' }).waitFor();
    await ui.checkAccessibility(page, 'the members page');
    await page.getByLabel('E-mail').fill('ada@example.com');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.locator('output.invite-link').textContent())!;
    expect(link).toMatch(/\/ui\/set-password#token=[A-Za-z0-9_-]{43}$/);
    await page.getByRole('cell', { name: 'ada@example.com', exact: true }).waitFor();
    await signOut(page);
    await page.waitForURL(/\/ui\/sign-in/);

    await page.goto(link);
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    await ui.checkAccessibility(page, 'the set-password page');
    await page.getByLabel('New password').fill('a long and unusual passphrase');
    await page.getByLabel('Repeat it').fill('a long and unusual passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/\/ui\/sign-in/);

    await page.getByLabel('E-mail').fill('ada@example.com');
    await page.getByLabel('Password', { exact: true }).fill('a long and unusual passphrase');
    await page.getByRole('button', { name: 'Continue with password' }).click();
    // Only one project is visible to her: straight to its journeys.
    await page.waitForURL(new RegExp(`/ui/projects/${ui.demo.projectId}/journeys`));
    await page.locator('table.journeys tbody tr').first().waitFor();
    expect(await page.getByRole('link', { name: 'Members' }).count()).toBe(0);
    const projects = await page.evaluate(async () => (await (await fetch('/ui/api/v1/projects')).json()) as { data: { items: { slug: string }[] } });
    expect(projects.data.items.map((p) => p.slug)).toEqual(['demo']);

    const { journey, eventId } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    await page.goto(`${ui.server.baseUrl}/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(eventId)}`);
    await page.locator('table.diff').first().waitFor();
    await page.getByRole('button', { name: 'Compare' }).or(page.getByRole('link', { name: 'Compare' })).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Replay this event' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete…' }).count()).toBe(0);
    await ui.checkAccessibility(page, 'a journey seen by a viewer');
  });
});
