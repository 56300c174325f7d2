// Settings → Replay destinations: an admin adds a second destination (the URL policy checked as
// they type, a header whose value is never shown again), edits and disables it, replays an event
// to it from the journey's replay panel, and sees the run count in the delete confirmation.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { startEchoDestination, TEST_ADMIN_TOKEN, type EchoDestination } from './server.ts';
import { adminApi, findLostPhone } from './subjects.ts';

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

async function fitsWindow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.right > width + 1 && !el.closest('.visually-hidden, .skip-link, thead, dialog');
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  });
}

describe('Settings: replay destinations', () => {
  const ui = useInterface();
  let first: EchoDestination;
  let second: EchoDestination;
  beforeAll(async () => {
    first = await startEchoDestination();
    second = await startEchoDestination();
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('adds a second destination, edits it, replays to it and deletes it with its run count', { timeout: 120_000 }, async () => {
    const created = await fetch(`${ui.server.baseUrl}/v1/replay-destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': ui.demo.projectId, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'first local copy', baseUrl: first.url, environmentType: 'local', headers: {} }),
    });
    expect(created.status).toBe(201);

    const path = `/ui/settings/projects/${ui.demo.projectId}/destinations`;
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    // A heading below Settings: the page has one h1.
    await page.getByRole('heading', { name: 'Replay destinations', level: 2 }).waitFor();
    expect(await page.locator('h1').count()).toBe(1);
    await page.getByRole('heading', { name: 'first local copy' }).waitFor();

    const form = page.getByRole('form', { name: 'Add a destination' });
    await form.getByLabel('Name').fill('second local copy');
    const url = form.getByLabel('Base URL');
    await url.fill('http://someone@127.0.0.1/api');
    await form.getByText('The base URL must not hold user information.').waitFor();
    await url.fill('http://staging.example.com');
    await form.getByText(/not in REPLAY_ALLOWED_HOSTS/).waitFor();
    await url.fill(`${second.url}/hooks`);
    await form.getByText(`Replays may be sent to ${second.url}/hooks.`).waitFor();
    await form.getByLabel('Kind').selectOption('test');
    await form.getByRole('button', { name: 'Add a header' }).click();
    await form.getByLabel('Header name 1').fill('X-Replay-Token');
    await form.getByLabel('Value 1').fill('token-value-never-shown');
    await form.getByRole('button', { name: 'Add destination' }).click();

    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'second local copy' }) });
    await card.waitFor();
    expect(await card.textContent()).toContain('X-Replay-Token (value set)');
    expect(await page.content()).not.toContain('token-value-never-shown');
    await ui.checkAccessibility(page, 'the destinations page');

    // Rename it and add a header; the stored token is kept without being shown.
    await card.getByRole('button', { name: 'Edit second local copy' }).click();
    const edit = page.getByRole('form', { name: 'Edit second local copy' });
    await edit.getByLabel('Name').fill('second copy');
    await edit.getByRole('button', { name: 'Add a header' }).click();
    await edit.getByLabel('Header name 2').fill('X-Tenant');
    await edit.getByLabel('Value 2').fill('tenant-7');
    await ui.checkAccessibility(page, 'a destination being edited');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const renamed = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'second copy' }) });
    await renamed.getByText('X-Tenant (value set)').waitFor();

    await renamed.getByRole('button', { name: 'Disable second copy' }).click();
    await renamed.getByText('disabled: replays to it are refused').waitFor();
    await renamed.getByRole('button', { name: 'Enable second copy' }).click();
    await renamed.getByText('enabled', { exact: true }).waitFor();

    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await page.waitForTimeout(100);
      expect(await fitsWindow(page), `destinations at ${size.width} px`).toEqual([]);
      await ui.checkAccessibility(page, `the destinations page at ${size.width} px`);
    }

    // Replay an event to the second destination from the journey's replay panel.
    const { journey, eventId } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
    await page.goto(`${ui.server.baseUrl}/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(eventId)}`);
    await page.getByRole('heading', { name: 'Replay this event' }).waitFor();
    await page.getByLabel('Destination').selectOption({ label: `second copy (${second.url}/hooks)` });
    await page.getByLabel('Path').fill('/contacts');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Send replay' }).click();
    await page.getByRole('region', { name: 'Replay result' }).waitFor();
    expect(second.received).toHaveLength(1);
    expect(second.received[0]).toMatchObject({ method: 'POST', path: '/hooks/contacts' });
    expect(second.received[0]!.headers).toMatchObject({ 'x-replay-token': 'token-value-never-shown', 'x-tenant': 'tenant-7' });
    expect(first.received).toHaveLength(0);

    // The delete confirmation names the destination and the run it removes.
    await page.goto(ui.server.baseUrl + path);
    const again = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'second copy' }) });
    await again.getByText('Replay runs1').or(again.locator('dd', { hasText: /^1$/ })).first().waitFor();
    // WRITE_SCREENSHOTS=1 rewrites the image of the README (1280 px).
    if (process.env.WRITE_SCREENSHOTS === '1') await page.screenshot({ path: 'docs/images/settings-destinations.png', fullPage: true });
    await again.getByRole('button', { name: 'Delete… second copy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the replay destination “second copy”?' });
    await dialog.getByText('This also deletes the 1 replay run sent to it.').waitFor();
    await ui.checkAccessibility(page, 'the delete confirmation');
    await dialog.getByRole('button', { name: 'Delete destination' }).click();
    await page.getByRole('heading', { name: 'second copy', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'first local copy' }).waitFor();
  });
});
