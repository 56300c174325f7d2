// The header says who is signed in; its menu leads to the person's own tokens and sessions and
// signs out.
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { person, signInAs, signOut } from './people.ts';

const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

describe('the account menu', () => {
  const ui = useInterface();

  it('names the person, lists their sessions, makes and revokes a token, and signs out', { timeout: 90_000 }, async () => {
    const who = await person(ui.db.pool, { [ui.demo.projectId]: 'viewer' });
    const { page } = await ui.open('/ui/sign-in');
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await signInAs(page, ui.server.baseUrl, who);
      const menu = page.getByRole('button', { name: `Signed in as ${who.email}` });
      await menu.waitFor();
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await ui.checkAccessibility(page, `the open account menu at ${size.width} px`);
      // The menu fits the window.
      const box = (await page.locator('#account-items').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      await page.getByRole('link', { name: 'Personal tokens and sessions' }).click();
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
      await page.locator('table', { hasText: 'this browser' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill(`laptop script ${size.width}`);
      await page.getByRole('button', { name: 'Create token' }).click();
      expect(await page.getByLabel('Personal token', { exact: true }).inputValue()).toMatch(/^jtp_/);
      const row = page.locator('tr', { hasText: `laptop script ${size.width}` });
      await row.waitFor();
      await ui.checkAccessibility(page, `the account page at ${size.width} px`);
      await row.getByRole('button', { name: /Revoke/ }).click();
      await expect.poll(() => row.count()).toBe(0);
      await signOut(page);
      await page.waitForURL(/\/ui\/sign-in/);
    }
  });

  it('says "admin token" for the admin token, whose menu has only Sign out', async () => {
    const { page } = await ui.open('/ui/sign-in');
    await ui.signIn(page);
    await page.getByRole('button', { name: 'Signed in as admin token' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.getByRole('link', { name: 'Personal tokens and sessions' }).count()).toBe(0);
    // Escape closes the menu and gives the focus back to its button.
    await page.keyboard.press('Escape');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('account-button');
  });
});
