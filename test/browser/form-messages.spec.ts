// Forms refuse in words: each message names the field by its label and says what is wrong, once,
// whether the form found it or the server did; simple rules are checked before anything is sent.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';

describe('validation messages', () => {
  const ui = useInterface();
  const p = () => ui.demo.projectId;

  async function signedIn(path: string) {
    const opened = await ui.open(`/ui/sign-in?next=${encodeURIComponent(path)}`);
    await ui.signIn(opened.page);
    return opened;
  }
  const alertText = (page: Page) => page.getByRole('alert').allTextContents();

  it('names the field of an expectation: a negative deadline and a final step outside the steps', async () => {
    const { page } = await signedIn(`/ui/projects/${p()}/expectations`);
    const form = page.getByRole('form', { name: 'Expectation' });
    await form.waitFor();
    await form.getByLabel('Entity type').fill('parcel');
    await form.getByLabel('Steps in order (one per line)').fill('receive\nstore');
    await form.getByLabel('Final step').fill('deliver');
    await form.getByLabel('Deadline for the whole journey (seconds)').fill('-5');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => alertText(page)).toEqual([
      expect.stringContaining('Final step: “deliver” is not one of the steps'),
    ]);
    const text = (await alertText(page))[0]!;
    expect(text).toContain('Deadline: must be a whole number of seconds, more than 0');
    expect(text).not.toContain('steps [{name, optional}]');
    expect(await form.getByLabel('Deadline for the whole journey (seconds)').getAttribute('aria-invalid')).toBe('true');
    await ui.checkAccessibility(page, 'a refused expectation');
  });

  it('says a bad redaction rule once, by its line, and sends neither the preview nor the save', async () => {
    const { page, guard } = await signedIn(`/ui/settings/projects/${p()}/environments`);
    const form = page.getByRole('form', { name: 'Settings of production' });
    await form.waitFor();
    await form.getByLabel('Redaction rules, one per line').fill('customer.plan\ncustomer..phone');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByText('Redaction rules, line 2: “customer..phone” is not a redaction rule').count()).toBe(1);
    expect(await page.getByText('event protocol 5.5').count()).toBe(0);
    await page.getByText('The preview waits until the settings above are valid.').waitFor();
    expect(guard.problems).toEqual([]);
    await ui.checkAccessibility(page, 'a refused redaction rule');
  });

  it('checks an audit log range before asking: Until must be after Since', async () => {
    const { page, guard } = await signedIn('/ui/settings/audit-log');
    const form = page.getByRole('form', { name: 'Filter the audit log' });
    await form.waitFor();
    await form.getByLabel('Since').fill('2026-03-02T10:00');
    await form.getByLabel('Until').fill('2026-03-01T10:00');
    await form.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => alertText(page)).toEqual(['Until: must be after Since.']);
    expect(new URL(page.url()).searchParams.get('since')).toBeNull();
    expect(guard.problems).toEqual([]);
  });

  it('names the threshold fields of an alert rule, and a server refusal by its field', async () => {
    const { page, guard } = await signedIn(`/ui/projects/${p()}/alerts`);
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.waitFor();
    await form.getByLabel('Name').fill('Lost phone');
    await form.getByLabel('At least (findings)').fill('0');
    await form.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await expect.poll(() => alertText(page)).toEqual(['At least (findings): must be a whole number from 1 to 1000000.']);
    await form.getByLabel('At least (findings)').fill('1');
    await form.getByLabel('URL').fill('http://example.com/hook');
    guard.expectResponse(400, /alert-rules$/);
    await form.getByRole('button', { name: 'Create rule' }).click();
    await expect.poll(() => alertText(page)).toEqual(['URL: The host is not in ALERT_ALLOWED_HOSTS.']);
  });
});
