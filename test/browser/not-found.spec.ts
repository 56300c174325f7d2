import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';

describe('pages that do not exist', () => {
  const ui = useInterface();

  it('answers an unknown URL with a heading and a way back', async () => {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/nowhere`));
    await ui.signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await ui.checkAccessibility(page, 'an unknown page');
    await page.getByRole('link', { name: 'Back to the journeys' }).click();
    await page.locator('table.journeys tbody tr').first().waitFor();

    await page.goto(`${ui.server.baseUrl}/ui/somewhere/else`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'All projects' }).waitFor();
  });

  it('answers a deleted journey’s URL with a heading and a way back', async () => {
    const { page, guard } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys/jrn_deleted_long_ago`));
    guard.expectResponse(404, /\/journeys\/jrn_deleted_long_ago$/, 2);
    await ui.signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Journey not found' }).waitFor();
    expect(await page.title()).toContain('Journey not found');
    await ui.checkAccessibility(page, 'a deleted journey');
    await page.getByRole('link', { name: 'Back to the journeys' }).click();
    await page.waitForURL(/\/journeys$/);
  });
});
