// Details of the whole interface: sign-in focus and confirmation, empty states that lead to
// Settings, one click back to the journeys, one UTC switch, one wording of "Project not found".
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../src/projects/projects-sql.ts';
import { useInterface } from './fixture.ts';

describe('interface details', () => {
  const ui = useInterface();

  it('focuses the e-mail on sign-in, and confirms a password just set', async () => {
    const { page } = await ui.open('/ui/sign-in?password=set');
    await page.getByRole('heading', { name: 'Sign in to jtrace' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('email');
    await page.getByRole('status').filter({ hasText: 'Your password is set.' }).waitFor();
    await ui.checkAccessibility(page, 'the sign-in page after a password is set');
  });

  it('leads an empty project to Settings for its first key, and Settings back to the journeys in one click', async () => {
    const empty = await createProject(ui.db.pool, 'empty', 'Empty project');
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${empty.id}/journeys`)}`);
    await ui.signIn(page);
    await page.getByRole('link', { name: 'Create an API key in Settings' }).click();
    await page.waitForURL(new RegExp(`/ui/settings/projects/${empty.id}/api-keys`));
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Journeys' }).click();
    await page.waitForURL(new RegExp(`/ui/projects/${empty.id}/journeys`));
  });

  it('has one UTC switch in the header that the audit log follows', async () => {
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent('/ui/settings/audit-log')}`);
    await ui.signIn(page);
    const time = page.locator('table time').first();
    await time.waitFor();
    expect(await time.textContent()).not.toMatch(/UTC$/);
    await page.locator('header.top').getByRole('button', { name: 'UTC times' }).click();
    await expect.poll(() => time.textContent()).toMatch(/UTC$/);
    await page.locator('header.top').getByRole('button', { name: 'UTC times' }).click();
  });

  it('words "Project not found" one way', async () => {
    const unknown = randomUUID();
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${unknown}/journeys`)}`);
    await ui.signIn(page);
    const reason = page.locator('.not-found p');
    await page.getByRole('heading', { name: 'Project not found' }).waitFor();
    const first = await reason.textContent();
    await page.goto(`${ui.server.baseUrl}/ui/settings/projects/${unknown}/members`);
    await page.getByRole('heading', { name: 'Project not found' }).waitFor();
    expect(await reason.textContent()).toBe(first);
  });
});

describe('a new environment name', () => {
  const ui = useInterface({ demo: false });

  it('is accepted with any characters, and the form says when services would find it unusual', async () => {
    const project = await createProject(ui.db.pool, 'names', 'Names');
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/settings/projects/${project.id}/environments`)}`);
    await ui.signIn(page);
    const form = page.getByRole('form', { name: 'Add an environment' });
    const name = form.getByLabel('Name, as events will carry it');
    await name.fill('staging-eu');
    expect(await form.locator('.name-note').count()).toBe(0);
    await name.fill('bad name!');
    await form.getByText('This name has spaces').waitFor();
    await name.fill('bad!');
    await form.getByText('characters services rarely use (!)').waitFor();
    await ui.checkAccessibility(page, 'an unusual environment name');
    await form.getByRole('button', { name: 'Add environment' }).click();
    await expect.poll(async () => (await ui.db.pool.query('SELECT name FROM environments WHERE project_id = $1', [project.id])).rows.map((r) => r.name)).toEqual(['bad!']);
  });
});
