// Settings · Environments in the browser: an environment renamed (with the note about spaces),
// an unused one removed after a confirmation, and a used one refused with what blocks it.
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';

describe('renaming and removing an environment', () => {
  const ui = useInterface();

  it('renames an environment, removes it once unused, and says what keeps production', async () => {
    const { page, guard } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/settings/projects/${ui.demo.projectId}/environments`)}`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await ui.signIn(page);
    const add = page.getByRole('form', { name: 'Add an environment' });
    await add.getByLabel('Name, as events will carry it').fill('scratch');
    await add.getByRole('button', { name: 'Add environment' }).click();
    await page.waitForURL(/\/environments\/scratch$/);

    const lifecycle = page.getByRole('form', { name: 'Rename or remove scratch' });
    await lifecycle.getByLabel('New name, as events will carry it').fill('scratch two');
    await lifecycle.getByText('This name has spaces').waitFor();
    await lifecycle.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(/\/environments\/scratch%20two$/);
    await page.getByRole('form', { name: 'Settings of scratch two' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Environments of the project' }).textContent()).not.toMatch(/scratch(?! two)/);
    // The rename is in the environment's history.
    await page.getByRole('region', { name: 'History of scratch two' }).locator('tbody tr', { hasText: 'scratch' }).first().waitFor();
    await ui.checkAccessibility(page, 'a renamed environment');

    await page.getByRole('form', { name: 'Rename or remove scratch two' }).getByRole('button', { name: 'Remove environment…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the environment “scratch two”?' });
    await dialog.getByRole('button', { name: 'Remove environment' }).click();
    await page.getByRole('form', { name: 'Settings of production' }).waitFor();
    await expect.poll(async () => page.getByRole('navigation', { name: 'Environments of the project' }).textContent()).not.toContain('scratch');

    guard.expectResponse(409, /environments\/production$/);
    await page.getByRole('form', { name: 'Rename or remove production' }).getByRole('button', { name: 'Remove environment…' }).click();
    const blocked = page.getByRole('dialog', { name: 'Remove the environment “production”?' });
    await blocked.getByRole('button', { name: 'Remove environment' }).click();
    await blocked.getByText(/API keys? .*journeys? .*use it: revoke the keys and delete or let retention remove the data first\./).waitFor();
    await ui.checkAccessibility(page, 'an environment that cannot be removed');
    await blocked.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('navigation', { name: 'Environments of the project' }).textContent()).toContain('production');
  });
});
