import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { startEchoDestination, type EchoDestination } from './server.ts';
import { adminApi, findLostPhone } from './subjects.ts';

describe('replay runs of a step', () => {
  const ui = useInterface();
  let echo: EchoDestination;
  beforeAll(async () => {
    echo = await startEchoDestination();
  });
  afterAll(async () => {
    await echo?.close();
  });

  it('lists the runs already sent for the step, with their result, headers and comparison', async () => {
    const { journey, eventId } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    const path = `/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(eventId)}`;
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    await page.getByRole('heading', { name: 'Replay this event' }).waitFor();
    await page.getByLabel('Base URL').fill(echo.url);
    await page.getByRole('button', { name: 'Create destination' }).click();
    await page.getByLabel('Path').fill('/contacts/again');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Send replay' }).click();
    await page.getByRole('region', { name: 'Replay result' }).waitFor();

    const history = page.getByRole('region', { name: /Runs already sent/ });
    await history.waitFor();
    await page.reload();
    await history.waitFor();
    expect(await history.getByRole('heading').textContent()).toBe('Runs already sent (1)');
    const run = history.locator('li').first();
    expect(await run.locator('summary').textContent()).toMatch(/POST \/contacts\/again · completed · 200 ·/);
    await run.locator('summary').click();
    const headers = run.locator('table.headers');
    expect(await headers.textContent()).toContain('content-type');
    expect(await run.locator('table.diff caption').textContent()).toBe('Compared with the recorded output');
    await ui.checkAccessibility(page, 'the runs already sent');
  });
});
