// Debian's Chromium driven by playwright-core: never a downloaded browser, a fresh profile each time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium';

/** Flags that keep Chromium quiet and offline apart from the page under test. */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1440, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'jtrace-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface Problem {
  kind: 'console' | 'pageerror' | 'requestfailed' | 'http';
  text: string;
}

/**
 * Collects every console error, uncaught error, CSP violation, failed request and error
 * response of a page. A test names the few error responses it provokes on purpose.
 */
export class PageGuard {
  readonly problems: Problem[] = [];
  private readonly expected: { status: number; path: RegExp; left: number }[] = [];

  constructor(readonly page: Page) {
    page.on('console', (message) => {
      if (message.type() === 'error') this.problems.push({ kind: 'console', text: message.text() });
    });
    page.on('pageerror', (error) => this.problems.push({ kind: 'pageerror', text: error.message }));
    page.on('requestfailed', (request) => {
      // A navigation away aborts in-flight reads; that is not a failure of the page.
      if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
      this.problems.push({ kind: 'requestfailed', text: `${request.method()} ${request.url()}: ${request.failure()?.errorText}` });
    });
    page.on('response', (response) => {
      if (response.status() < 400) return;
      const url = new URL(response.url());
      const allowance = this.expected.find((e) => e.status === response.status() && e.path.test(url.pathname) && e.left > 0);
      if (allowance) allowance.left -= 1;
      else this.problems.push({ kind: 'http', text: `${response.request().method()} ${url.pathname} answered ${response.status()}` });
    });
  }

  /** Allow `times` responses of this status on paths matching `path` (and their console lines). */
  expectResponse(status: number, path: RegExp, times = 1): void {
    this.expected.push({ status, path, left: times });
  }

  /** Everything unexpected; Chromium's own console line for an allowed error response is dropped. */
  unexpected(): Problem[] {
    const allowedStatuses = new Set(this.expected.map((e) => e.status));
    return this.problems.filter(
      (problem) =>
        !(problem.kind === 'console' && /^Failed to load resource: the server responded with a status of (\d+)/.exec(problem.text) &&
          allowedStatuses.has(Number(/status of (\d+)/.exec(problem.text)![1]))),
    );
  }
}

/** Reports CSP violations to the console, where the guard sees them (init scripts are not subject to CSP). */
export async function reportCspViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`csp-violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
}
