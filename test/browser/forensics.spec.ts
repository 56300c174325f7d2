import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { adminApi, findKeptPhone, findLostPhone } from './subjects.ts';

describe('journey forensics in the browser', () => {
  const ui = useInterface();
  const api = () => adminApi(ui.server.baseUrl, ui.demo.projectId);

  async function signedIn(path: string) {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    return page;
  }

  it('lists what changed, follows the phone field and highlights the step that lost it', async () => {
    const { journey, eventId, rows } = await findLostPhone(api());
    const losing = rows.find((row) => row.id === eventId)!;
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}`);
    const changes = page.getByRole('region', { name: 'What changed' });
    const first = changes.locator('table.changes tbody tr').first();
    await first.waitFor();
    expect(await first.locator('.kind').textContent()).toBe('lost');
    await ui.checkAccessibility(page, 'the what-changed panel');

    const phoneRow = changes.locator('table.changes tbody tr', { hasText: 'phone' }).first();
    const phonePath = (await phoneRow.locator('td').nth(1).locator('code').first().textContent())!;
    await phoneRow.getByRole('button', { name: `Follow ${phonePath}` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('field')).toBe(phonePath);
    const lostHere = page.locator('.field-trail li.lost-here');
    await lostHere.waitFor();
    expect(await lostHere.count()).toBe(1);
    expect(await lostHere.textContent()).toContain(losing.name);
    expect(await page.locator('.field-trail .trail-summary').textContent()).toContain(losing.name);
    // Keyboard users land on the followed field.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('trail-heading');
    await ui.checkAccessibility(page, 'a followed field');

    // The URL is the view: a reload follows the same field.
    await page.reload();
    await page.locator('.field-trail li.lost-here').waitFor();
    expect(await page.locator('.field-trail li.lost-here').textContent()).toContain(losing.name);

    // From the event's diff table too.
    await page.getByRole('button', { name: 'Stop following' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('field')).toBeNull();
    await page.goto(`${ui.server.baseUrl}/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(eventId)}`);
    const diffRow = page.locator('table.diff tbody tr', { hasText: 'phone' }).first();
    await diffRow.getByRole('button', { name: /^Follow / }).click();
    await page.locator('.field-trail li.lost-here').waitFor();
    expect(new URL(page.url()).searchParams.get('event')).toBe(eventId);
    expect(new URL(page.url()).searchParams.get('field')).toContain('phone');
  });

  it('compares the lost-phone journey with one that kept the phone and marks the differing step', async () => {
    const { journey, eventId, rows } = await findLostPhone(api());
    const losing = rows.find((row) => row.id === eventId)!;
    const kept = await findKeptPhone(api(), journey.entity.type, losing.name);
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}`);
    await page.getByRole('link', { name: 'Compare' }).click();
    await page.waitForURL(/\/compare\?a=/);
    const pick = page.locator('.compare-pick a');
    await pick.first().waitFor();
    expect(await pick.allTextContents()).toContain(kept.label ?? `${kept.entity.type} ${kept.entity.id}`);
    await ui.checkAccessibility(page, 'choosing a journey to compare with');

    await page.getByLabel('Journey id to compare with').fill(kept.journeyId);
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('b')).toBe(kept.journeyId);
    const table = page.locator('table.comparison');
    await table.waitFor();
    const step = table.locator('tbody tr', { hasText: losing.name }).first();
    expect(await step.getAttribute('class')).toContain('differs');
    expect(await step.textContent()).toContain('phone');
    await ui.checkAccessibility(page, 'two journeys side by side');

    // The comparison is shared by its URL.
    await page.reload();
    await table.waitFor();
    expect(await table.locator('tbody tr', { hasText: losing.name }).first().getAttribute('class')).toContain('differs');
  });
});
