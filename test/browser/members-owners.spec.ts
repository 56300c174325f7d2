// Settings · Members lists the instance's owners, who act as admin in every project, marked so and
// without actions (their access is not the project's to change).
import { describe, expect, it } from 'vitest';
import { makePerson } from '../../src/teams/test-kit.ts';
import { useInterface } from './fixture.ts';

describe('owners on the members page', () => {
  const ui = useInterface();

  it('lists an owner as "owner (every project)" with no action', async () => {
    const owner = await makePerson(ui.db.pool, {}, { owner: true, email: 'ada.owner@example.com' });
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/settings/projects/${ui.demo.projectId}/members`)}`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await ui.signIn(page);
    const row = page.locator('table.members tbody tr', { hasText: owner.email });
    await row.waitFor();
    expect(await row.textContent()).toContain('owner (every project)');
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await row.getByRole('combobox').count()).toBe(0);
    await ui.checkAccessibility(page, 'the members page with an owner');
  });
});
