import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { startEchoDestination, TEST_ADMIN_TOKEN, type EchoDestination } from './server.ts';
import { adminApi, findLostPhone, recentJourneys } from './subjects.ts';

describe('journeys in the browser', () => {
  const ui = useInterface();
  let echo: EchoDestination;
  beforeAll(async () => {
    echo = await startEchoDestination();
  });
  afterAll(async () => {
    await echo?.close();
  });

  const journeys = () => recentJourneys(adminApi(ui.server.baseUrl, ui.demo.projectId));
  const lostPhone = () => findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));

  async function signedIn(path: string): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    return page;
  }

  it('finds a journey by entity id and by alias', async () => {
    const target = (await journeys()).find((j) => j.displayableAliases.length > 0)!;
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys`);
    const box = page.getByRole('searchbox', { name: 'Find a record' });

    await box.fill(target.entity.id);
    await box.press('Enter');
    await page.waitForURL(/\/search\?q=/);
    const links = page.locator('table.journeys a.journey-link');
    await links.first().waitFor();
    expect(await links.allTextContents()).toContain(target.label ?? target.entity.id);
    await ui.checkAccessibility(page, 'search results');

    await box.fill(target.displayableAliases[0]!.value);
    await page.getByRole('button', { name: 'Find' }).click();
    await expect.poll(() => page.url()).toContain(encodeURIComponent(target.displayableAliases[0]!.value));
    await expect.poll(async () => (await links.allTextContents()).includes(target.label ?? target.entity.id)).toBe(true);
    await links.filter({ hasText: target.label ?? target.entity.id }).first().click();
    await page.getByRole('heading', { level: 1, name: target.label ?? target.entity.id }).waitFor();
  });

  it('filters the journeys list to failures and keeps the filter in a shared URL', async () => {
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys?window=week`);
    await page.getByRole('button', { name: 'Failures only' }).click();
    await page.waitForURL(/status=failed/);
    await page.getByRole('heading', { name: 'Failed journeys' }).waitFor();
    const statuses = page.locator('table.journeys tbody .badge');
    await statuses.first().waitFor();
    expect(new Set(await statuses.allTextContents())).toEqual(new Set(['failed']));
    const chart = page.getByRole('img', { name: /Journeys from .* failed\./ });
    expect(await chart.getAttribute('aria-label')).toMatch(/[1-9]\d* failed/);
    await ui.checkAccessibility(page, 'the failures list');

    const shared = page.url();
    expect(shared).toContain('window=week');
    await page.reload();
    await page.getByRole('heading', { name: 'Failed journeys' }).waitFor();
    await statuses.first().waitFor();
    expect(new Set(await statuses.allTextContents())).toEqual(new Set(['failed']));
    expect(await page.getByLabel('Status').inputValue()).toBe('failed');
    expect(await page.getByLabel('Window').inputValue()).toBe('week');
  });

  it('opens a timeline, moves with the keyboard and shows the lost phone number first in the diff', async () => {
    const { journey, eventId, rows } = await lostPhone();
    // Opened on its first step (a journey opened without one selects where it lost a value).
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(rows[0]!.id)}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await ui.checkAccessibility(page, 'a journey');
    const selected = () => new URL(page.url()).searchParams.get('event');

    await page.keyboard.press('j');
    await expect.poll(selected).toBe(rows[1]!.id);
    await page.keyboard.press('ArrowDown');
    await expect.poll(selected).toBe(rows[2]!.id);
    await page.keyboard.press('k');
    await expect.poll(selected).toBe(rows[1]!.id);
    for (let moves = 0; selected() !== eventId && moves < rows.length; moves += 1) {
      const before = selected();
      await page.keyboard.press('j');
      await expect.poll(selected).not.toBe(before);
    }
    expect(selected()).toBe(eventId);

    const diff = page.locator('table.diff').first();
    await diff.waitFor();
    const first = diff.locator('tbody tr').first();
    expect(await first.locator('.kind').textContent()).toBe('lost');
    expect(await first.locator('td').nth(1).textContent(), await diff.textContent() ?? '').toContain('phone');
    await ui.checkAccessibility(page, 'a journey with an event and its diff');

    // The selected event is part of the URL: a reload shows the same event.
    await page.reload();
    await page.locator('table.diff').first().waitFor();
    expect(selected()).toBe(eventId);
  });

  it('replays an event to a local destination and shows the comparison with the recorded output', async () => {
    const { journey, eventId } = await lostPhone();
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(eventId)}`);
    await page.getByRole('heading', { name: 'Replay this event' }).waitFor();
    const empty = page.getByRole('heading', { name: 'No replay destination yet' });
    if (await empty.isVisible()) {
      await ui.checkAccessibility(page, 'replay without a destination');
      await page.getByLabel('Base URL').fill(echo.url);
      await page.getByRole('button', { name: 'Create destination' }).click();
    }
    await page.getByLabel('Destination').waitFor();
    await page.getByLabel('Path').fill('/contacts/replay');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('region', { name: 'What will be sent' });
    await preview.waitFor();
    expect(await preview.textContent()).toContain(`POST ${echo.url}/contacts/replay`);
    await ui.checkAccessibility(page, 'a replay preview');

    await page.getByRole('button', { name: 'Send replay' }).click();
    const result = page.getByRole('region', { name: 'Replay result' });
    await result.waitFor();
    expect(await result.locator('.fact').filter({ hasText: 'Response status' }).textContent()).toContain('200');
    await result.locator('table.diff').waitFor();
    expect(await result.locator('table.diff caption').textContent()).toBe('Compared with the recorded output');
    expect(await result.locator('table.diff tbody tr').count()).toBeGreaterThan(0);
    expect(echo.received.at(-1)?.path).toBe('/contacts/replay');
    await ui.checkAccessibility(page, 'a replay result');
  });

  it('deletes a journey after a confirmation that names it', async () => {
    const target = (await journeys()).at(-1)!;
    const title = target.label ?? target.entity.id;
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(target.journeyId)}`);
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe(`Delete the journey “${title}”?`);
    await ui.checkAccessibility(page, 'the delete confirmation');
    await dialog.getByRole('button', { name: 'Delete journey' }).click();
    await page.waitForURL(/\/journeys\?deleted=1/);
    await page.getByText('The journey was deleted.').waitFor();
    const gone = await fetch(`${ui.server.baseUrl}/v1/journeys/${encodeURIComponent(target.journeyId)}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': ui.demo.projectId },
    });
    expect(gone.status).toBe(404);
  });
});
