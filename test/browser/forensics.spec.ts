import { describe, expect, it } from 'vitest';
import { DEMO_ENVIRONMENT } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';
import { sendEvents } from './journeys.ts';
import { adminApi, findKeptPhone, findLostInTransit, findLostPhone } from './subjects.ts';

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
    // Lost within a step, not across a hand-off: nothing to mark between two steps.
    expect(await page.locator('.timeline .transit-loss').count()).toBe(0);
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
    // Followed from the URL, not from a control of the page: focus goes to the changes' heading.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('changes-heading');
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

  it('marks a value lost in transit on the timeline between the two steps, and follows it from there', async () => {
    const lost = await findLostInTransit(api());
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(lost.journey.journeyId)}`);
    const marker = page.getByRole('link', { name: `${lost.path} lost between ${lost.from} and ${lost.to}` });
    await marker.waitFor();
    expect(await page.locator('.timeline .transit-loss').count()).toBe(1);
    // Right before the step that never received the value, after the one it left.
    const lines = await page.locator('.timeline > li').allTextContents();
    const at = lines.findIndex((text) => text.includes(' lost between '));
    const line = (step: string) => new RegExp(step.replace(' · ', ' ') + '\\b');
    expect(lines[at + 1]).toMatch(line(lost.to));
    expect(lines.slice(0, at).some((text) => line(lost.from).test(text))).toBe(true);
    await ui.checkAccessibility(page, 'a timeline with a value lost in transit');

    await marker.click();
    await expect.poll(() => new URL(page.url()).searchParams.get('field')).toBe(lost.path);
    await page.locator('.field-trail .hand-off.lost-in-transit').waitFor();
    expect(await page.locator('.field-trail .trail-summary').textContent()).toBe(`Lost in transit between ${lost.from} and ${lost.to}.`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('trail-heading');

    // Stopping returns focus to the control that started following: the marker, then a Follow button.
    await page.getByRole('button', { name: 'Stop following' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('li')?.className)).toBe('transit-loss');
    const lostRow = page.getByRole('region', { name: 'What changed' }).locator('table.changes tbody tr.diff-lost', { hasText: lost.path });
    const follow = lostRow.getByRole('button', { name: `Follow ${lost.path}` });
    await follow.click();
    await page.locator('.field-trail .hand-off.lost-in-transit').waitFor();
    await page.getByRole('button', { name: 'Stop following' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Follow ${lost.path}`);
  });

  it('refreshes the timeline, what changed and the followed field in Live mode as events arrive', async () => {
    const journeyId = 'jrn_live_contact';
    const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };
    const now = Date.now();
    const event = (step: number, fields: Record<string, unknown>) => ({
      id: `evt_live_${step}`,
      journeyId,
      environment: DEMO_ENVIRONMENT,
      entity: { type: 'contact', id: 'contact-live' },
      timestamp: new Date(now - 3_000 + step * 1_000).toISOString(),
      ...fields,
    });
    await sendEvents(ui.server.baseUrl, ui.demo.apiKey, [
      event(0, { service: 'webhook-gateway', operation: 'received', name: 'receive', input: { customer } }),
      event(1, { service: 'crm-writer', operation: 'persisted', name: 'persist', input: { customer }, output: { customer, crmId: 'crm-1' } }),
    ]);
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${journeyId}?field=customer.email`);
    const events = page.locator('.timeline li.event');
    const changes = page.getByRole('region', { name: 'What changed' });
    const summary = page.locator('.field-trail .trail-summary');
    await summary.waitFor();
    expect(await events.count()).toBe(2);
    expect(await summary.textContent()).toBe('Never lost or changed in this journey.');
    await changes.locator('table.changes tbody tr', { hasText: 'crmId' }).waitFor();
    expect(await changes.locator('table.changes tbody tr', { hasText: 'customer.email' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Live' }).click();
    expect(await page.getByRole('button', { name: 'Live' }).getAttribute('aria-pressed')).toBe('true');
    await ui.checkAccessibility(page, 'a journey in Live mode');
    await sendEvents(ui.server.baseUrl, ui.demo.apiKey, [
      event(2, { service: 'notification-worker', operation: 'delivered', name: 'deliver', input: { customer: { ...customer, email: 'ada.lovelace@example.com' }, crmId: 'crm-1' } }),
    ]);

    // Live reads every 3 seconds; no reload.
    await expect.poll(() => events.count(), { timeout: 15_000 }).toBe(3);
    const emailRow = changes.locator('table.changes tbody tr', { hasText: 'customer.email' });
    await expect.poll(() => emailRow.count(), { timeout: 10_000 }).toBe(1);
    expect(await emailRow.locator('.kind').textContent()).toBe('changed');
    expect(await emailRow.textContent()).toContain('in transit persist → deliver');
    await expect.poll(() => summary.textContent(), { timeout: 10_000 }).toBe('Never lost; first changed at notification-worker · deliver.');
    expect(await page.locator('.field-trail li.trail-step').count()).toBe(3);
  });
});
