// Shared set-up of the browser tests: one database with the demo, one server, one Chromium.
// Every page opened through it is guarded, and each test fails on anything the guard caught.
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { TestDatabase } from '../helpers/database.ts';
import { seriousAxeFindings } from './axe.ts';
import { launchBrowser, PageGuard, reportCspViolations, type Browser } from './browser.ts';
import { loadDemo, type DemoData } from './demo-data.ts';
import { createDatabase, startServer, TEST_ADMIN_TOKEN, type RunningServer } from './server.ts';

export interface InterfaceFixture {
  db: TestDatabase;
  server: RunningServer;
  demo: DemoData;
  browser: Browser;
  /** A new tab whose console, requests and CSP reports are watched. */
  open(path?: string): Promise<{ page: Page; guard: PageGuard }>;
  signIn(page: Page): Promise<void>;
  /** No serious or critical axe finding on the page as it is now. */
  checkAccessibility(page: Page, what: string): Promise<void>;
}

export function useInterface(options: { demo?: boolean } = {}): InterfaceFixture {
  const guards: PageGuard[] = [];
  const fixture = {} as InterfaceFixture;

  beforeAll(async () => {
    fixture.db = await createDatabase();
    fixture.server = await startServer(fixture.db);
    if (options.demo !== false) fixture.demo = await loadDemo(fixture.db.pool, fixture.server.baseUrl);
    fixture.browser = await launchBrowser();
    await reportCspViolations(fixture.browser.context);
    fixture.open = async (path = '/ui/') => {
      const page = await fixture.browser.context.newPage();
      const guard = new PageGuard(page);
      guards.push(guard);
      await page.goto(fixture.server.baseUrl + path);
      return { page, guard };
    };
    fixture.signIn = async (page) => {
      await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: /^Signed in as/ }).waitFor();
    };
    fixture.checkAccessibility = async (page, what) => {
      expect(await seriousAxeFindings(page), `axe findings on ${what}`).toEqual([]);
    };
  });

  afterEach(async () => {
    const pages = guards.splice(0);
    for (const guard of pages) {
      await guard.page.close();
      expect(guard.unexpected(), 'console errors, CSP violations or failed requests').toEqual([]);
    }
    await fixture.browser.context.clearCookies();
  });

  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.server?.close();
    await fixture.db?.drop();
  });

  return fixture;
}
