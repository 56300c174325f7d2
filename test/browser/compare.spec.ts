import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { adminApi, findKeptPhone, findLostPhone } from './subjects.ts';

describe('comparing two contacts', () => {
  const ui = useInterface();
  const api = () => adminApi(ui.server.baseUrl, ui.demo.projectId);

  it('answers which one lost the phone and where, with the entities’ own values set apart', async () => {
    const { journey, eventId, rows } = await findLostPhone(api());
    const losing = rows.find((row) => row.id === eventId)!;
    const kept = await findKeptPhone(api(), journey.entity.type, losing.name);
    const path = `/ui/projects/${ui.demo.projectId}/compare?a=${encodeURIComponent(journey.journeyId)}&b=${encodeURIComponent(kept.journeyId)}`;
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    const table = page.locator('table.comparison');
    await table.waitFor();

    // One line on top: who lost what, where.
    const summary = page.locator('.compare-summary');
    expect(await summary.textContent()).toMatch(new RegExp(`^A lost customer\\.phone at [^ ]+ · ${losing.name} \\((output|input)\\); B kept it\\.`));
    // One-sided differences come first, and only those: names and e-mails differ between any two contacts.
    const oneSided = page.getByRole('region', { name: 'In one journey only' });
    const items = await oneSided.locator('li').allTextContents();
    expect(items[0]).toContain('customer.phone');
    expect(items.join(' ')).not.toMatch(/customer\.(name|email)/);

    // The first step (both received their own contact) is the same step whose values differ with the entity.
    const receive = table.locator('tbody tr').first();
    expect(await receive.getAttribute('class')).not.toContain('differs');
    expect(await receive.locator('.entity-values summary').textContent()).toMatch(/values? differs? with the entity/);
    const step = table.locator('tbody tr', { hasText: losing.name }).first();
    expect(await step.getAttribute('class')).toContain('differs');
    expect(await step.locator('.diff-summary').first().textContent()).toContain('customer.phone');
    await page.getByRole('link', { name: 'Go to the first difference' }).click();
    expect(new URL(page.url()).hash).toBe(`#${await step.getAttribute('id')}`);
    await ui.checkAccessibility(page, 'two contacts compared');
  });
});
