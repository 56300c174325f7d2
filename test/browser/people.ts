// People for the browser tests: made as the CLI makes them, signed in through the sign-in page.
import type { Page } from 'playwright-core';
import { makePerson, PASSWORD, type TestPerson } from '../../src/teams/test-kit.ts';
import type { Role } from '../../src/auth/policy.ts';
import type { Pool } from '../../src/db/pool.ts';

export { makePerson, PASSWORD, type TestPerson };

export async function person(pool: Pool, roles: Record<string, Role>, options: { owner?: boolean; email?: string } = {}): Promise<TestPerson> {
  return makePerson(pool, roles, options);
}

/** Signs in with e-mail and password on the sign-in page and waits for the signed-in header. */
export async function signInAs(page: Page, baseUrl: string, who: TestPerson, next = ''): Promise<void> {
  await page.goto(`${baseUrl}/ui/sign-in${next === '' ? '' : `?next=${encodeURIComponent(next)}`}`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Continue with password' }).click();
  await page.locator('header.top').waitFor();
}

/** Signs out through the account menu of the header. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Signed in as/ }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
}
