// Alert rules in the browser: the signing secret is shown once with a copy button, the form
// starts over after a rule is made (a second Enter makes no duplicate), and a rule is deleted
// after a confirmation that names it.
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { startEchoDestination } from './server.ts';

describe('alert rules', () => {
  const ui = useInterface();

  it('copies the secret, clears the form after creating, and deletes a rule after confirming', async () => {
    await ui.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.server.baseUrl });
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/alerts`)}`);
    await ui.signIn(page);
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.waitFor();
    await form.getByLabel('Name').fill('Lost phone');
    await form.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await form.getByLabel('URL').press('Enter');
    const secret = page.getByLabel('Signing secret');
    await secret.waitFor();
    const value = await secret.inputValue();
    expect(value).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    // The form starts over: Enter again sends nothing (the name is required and empty).
    expect(await form.getByLabel('Name').inputValue()).toBe('');
    expect(await form.getByLabel('URL').inputValue()).toBe('');
    await form.getByLabel('URL').press('Enter');
    const rows = page.locator('table.settings-table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await ui.checkAccessibility(page, 'a new alert rule and its secret');

    await rows.first().getByRole('button', { name: /Delete…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the rule “Lost phone”?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByRole('status').filter({ hasText: 'No alert rule yet.' }).waitFor();
  });

  it('sends a signed test to the rule\'s receiver and shows its answer', async () => {
    const receiver = await startEchoDestination();
    try {
      const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/alerts`)}`);
      await ui.signIn(page);
      const form = page.getByRole('form', { name: 'New alert rule' });
      await form.getByLabel('Name').fill('Tested rule');
      await form.getByLabel('URL').fill(`${receiver.url}/jtrace`);
      await form.getByRole('button', { name: 'Create rule' }).click();
      const row = page.locator('table.settings-table tbody tr', { hasText: 'Tested rule' });
      await row.getByRole('button', { name: /Send a test/ }).click();
      await page.getByRole('status').filter({ hasText: /Test of Tested rule: the receiver answered 200 in \d+ ms\./ }).waitFor();
      expect(receiver.received).toHaveLength(1);
      expect(String(receiver.received[0]!.headers['x-jtrace-signature'])).toMatch(/.+/);
      expect(receiver.received[0]!.body).toMatchObject({ notification: 'test' });
      await ui.checkAccessibility(page, 'the answer of a test delivery');
    } finally {
      await receiver.close();
    }
  });

  it('edits a rule in a prefilled form and shows it changed, at 1280 px', async () => {
    const { page } = await ui.open(`/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${ui.demo.projectId}/alerts`)}`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await ui.signIn(page);
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name').fill('Rule to edit');
    await form.getByLabel('Field path (optional)').fill('customer.phone');
    await form.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('button', { name: 'Done' }).or(page.getByLabel('Signing secret')).first().waitFor();
    const row = page.locator('table.settings-table tbody tr', { hasText: 'Rule to edit' });
    await row.getByRole('button', { name: /^Edit/ }).click();
    const edit = page.getByRole('form', { name: 'Edit alert rule' });
    await edit.waitFor();
    expect(await edit.getByLabel('Name').inputValue()).toBe('Rule to edit');
    expect(await edit.getByLabel('Field path (optional)').inputValue()).toBe('customer.phone');
    expect(await edit.getByLabel('URL').inputValue()).toBe('http://127.0.0.1:9/hook');
    // A threshold out of range is named before anything is sent.
    await edit.getByLabel('At least (findings)').fill('0');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(/At least \(findings\).*must be a whole number from 1 to 1000000/).first().waitFor();
    await edit.getByLabel('Name').fill('Edited rule');
    await edit.getByLabel('Finding', { exact: true }).selectOption('failed');
    await edit.getByLabel('Field path (optional)').fill('');
    await edit.getByLabel('At least (findings)').fill('3');
    await edit.getByLabel('Within (minutes)').fill('15');
    await edit.getByLabel('URL').fill('http://127.0.0.1:9/other');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('form', { name: 'New alert rule' }).waitFor();
    const edited = page.locator('table.settings-table tbody tr', { hasText: 'Edited rule' });
    await edited.waitFor();
    expect(await edited.textContent()).toContain('at least 3 in 15 min');
    expect(await edited.textContent()).toContain('http://127.0.0.1:9/other');
    expect(await edited.textContent()).not.toContain('customer.phone');
    expect(await page.locator('table.settings-table tbody tr', { hasText: 'Rule to edit' }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await ui.checkAccessibility(page, 'an edited alert rule');
  });
});
