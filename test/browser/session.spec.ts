import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { signOut } from './people.ts';
import { startServer, TEST_ADMIN_TOKEN } from './server.ts';

describe('session in the browser', () => {
  const ui = useInterface();

  it('signs in with the admin token after a wrong one is refused', async () => {
    const { page, guard } = await ui.open('/ui/');
    guard.expectResponse(401, /^\/ui\/api\/session$/, 2);
    await page.waitForURL(/\/ui\/sign-in\?next=/);
    await ui.checkAccessibility(page, 'the sign-in page');

    await page.getByLabel('Admin token').fill('not-the-token-0123456789abcdefghij');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not accepted');
    await ui.checkAccessibility(page, 'the sign-in page with its error');

    await ui.signIn(page);
    // One project: straight to its journeys.
    await page.waitForURL(/\/ui\/projects\/[0-9a-f-]+\/journeys/);
    await page.getByRole('heading', { name: 'Journeys' }).waitFor();
    await page.locator('table.journeys tbody tr').first().waitFor();
    await ui.checkAccessibility(page, 'the journeys page');
  });

  it('locks sign-in on the sixth wrong try, like admin credentials', async () => {
    // A second server process over the same database: its own throttle, so the lock stays here.
    const other = await startServer(ui.db);
    try {
      const page = await ui.browser.context.newPage();
      const { PageGuard } = await import('./browser.ts');
      const guard = new PageGuard(page);
      guard.expectResponse(401, /^\/ui\/api\/session$/, 5);
      guard.expectResponse(429, /^\/ui\/api\/session$/, 1);
      await page.goto(other.baseUrl + '/ui/sign-in');
      for (let attempt = 1; attempt <= 6; attempt += 1) {
        await page.getByLabel('Admin token').fill(`wrong-token-number-${attempt}-0123456789abcdef`);
        const answered = page.waitForResponse((r) => r.url().endsWith('/ui/api/session'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect((await answered).status()).toBe(attempt <= 5 ? 401 : 429);
        // The page clears the field after a refusal; type the next guess only after that.
        await expect.poll(() => page.getByLabel('Admin token').inputValue()).toBe('');
      }
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Too many failed attempts.*Try again in \d+ seconds/);
      await ui.checkAccessibility(page, 'the locked sign-in page');
      // Even the right token is held back while locked.
      await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
      guard.expectResponse(429, /^\/ui\/api\/session$/, 1);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('Too many failed attempts');
      await page.close();
      expect(guard.unexpected()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('signs out, and the old cookie is refused afterwards', async () => {
    const { page, guard } = await ui.open('/ui/sign-in');
    await ui.signIn(page);
    const [cookie] = await ui.browser.context.cookies(ui.server.baseUrl + '/ui/');
    expect(cookie).toMatchObject({ name: 'jtrace_session', httpOnly: true, sameSite: 'Strict', path: '/ui' });

    // Signed in, the only project's journeys page loads; sign out once it has.
    await page.locator('.chart svg').waitFor();
    await page.locator('table.journeys tbody tr').first().waitFor();
    await signOut(page);
    await page.waitForURL(/\/ui\/sign-in/);
    expect(await ui.browser.context.cookies(ui.server.baseUrl + '/ui/')).toEqual([]);

    const replayed = await fetch(ui.server.baseUrl + '/ui/api/session', { headers: { cookie: `${cookie!.name}=${cookie!.value}` } });
    expect(replayed.status).toBe(401);
    // The browser with the old cookie put back is sent to sign-in.
    await ui.browser.context.addCookies([cookie!]);
    guard.expectResponse(401, /^\/ui\/api\/session$/, 1);
    await page.goto(ui.server.baseUrl + '/ui/');
    await page.waitForURL(/\/ui\/sign-in/);
  });
});
