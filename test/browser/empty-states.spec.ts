import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/crypto/keyring.ts';
import { createProject } from '../../src/projects/projects-sql.ts';
import { seedProject, TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { useInterface } from './fixture.ts';

describe('empty states and the project picker', () => {
  const ui = useInterface({ demo: false });

  it('teach the exact commands: no project, no key, no events; a picker when there are several projects', async () => {
    const { page } = await ui.open('/ui/sign-in');
    await ui.signIn(page);
    await page.getByRole('heading', { name: 'No project yet' }).waitFor();
    expect(await page.locator('pre.command').allTextContents()).toEqual([
      'npx jtrace demo',
      'npx jtrace project:create shop "Shop"\nnpx jtrace key:create shop production "checkout service"',
    ]);
    await ui.checkAccessibility(page, 'the page without projects');

    const bare = await createProject(ui.db.pool, 'bare', 'Bare project');
    await page.reload();
    await page.waitForURL(new RegExp(`/ui/projects/${bare.id}/journeys`));
    await page.getByRole('heading', { name: 'No API key yet' }).waitFor();
    expect(await page.locator('pre.command').textContent()).toBe('npx jtrace key:create bare production "my service"');
    await ui.checkAccessibility(page, 'a project without a key');

    await seedProject(ui.db.pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), 'quiet', 'staging');
    await page.goto(ui.server.baseUrl + '/ui/');
    await page.getByRole('heading', { name: 'Choose a project' }).waitFor();
    await ui.checkAccessibility(page, 'the project picker');
    await page.getByRole('link', { name: 'Project quiet' }).click();
    await page.getByRole('heading', { name: 'No events yet' }).waitFor();
    const commands = await page.locator('pre.command').allTextContents();
    expect(commands[0]).toContain(`curl -X POST ${ui.server.baseUrl}/v1/events`);
    expect(commands[0]).toContain('"environment":"staging"');
    expect(commands[1]).toBe('npx jtrace demo');
    await ui.checkAccessibility(page, 'a project with a key and no events');
    // The header's project link leads back to the picker when there are several.
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: /Project quiet/ }).click();
    await page.getByRole('heading', { name: 'Choose a project' }).waitFor();
  });
});
