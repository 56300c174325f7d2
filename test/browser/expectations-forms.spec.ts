// The expectations page by role and as a form: read-only for roles that cannot set them, Edit
// moves the focus to the form.
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { person, signInAs } from './people.ts';

describe('the expectations page', () => {
  const ui = useInterface();

  it('is read-only for a viewer and an operator: no Edit, no Suggest from history, no Save, no refused request', { timeout: 90_000 }, async () => {
    const p = ui.demo.projectId;
    for (const role of ['viewer', 'operator'] as const) {
      const who = await person(ui.db.pool, { [p]: role });
      const { page } = await ui.open('/ui/sign-in');
      for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
        await page.setViewportSize(size);
        await signInAs(page, ui.server.baseUrl, who, `/ui/projects/${p}/expectations`);
        const saved = page.locator('table.settings-table');
        await saved.waitFor();
        expect(await saved.locator('tbody tr').first().textContent()).toContain('contact');
        expect(await page.getByRole('button', { name: /Edit/ }).count()).toBe(0);
        expect(await page.getByRole('button', { name: 'Suggest from history' }).count()).toBe(0);
        expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
        expect(await page.locator('main form').count()).toBe(0);
        await page.getByText('an admin of this project sets them').waitFor();
        await ui.checkAccessibility(page, `the expectations page seen by a ${role} at ${size.width} px`);
        await page.context().clearCookies();
      }
    }
  });

  it('moves the focus to the form when an expectation is edited', async () => {
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/expectations`)}`);
    await ui.signIn(page);
    await page.locator('table.settings-table tbody tr').first().waitFor();
    await page.getByRole('button', { name: /Edit/ }).first().click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('expectation-steps');
    expect(await page.getByLabel('Entity type').inputValue()).toBe('contact');
  });
});
