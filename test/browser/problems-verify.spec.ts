// Verifying a fix from a problem's page (docs/problems.md, "Verifying a fix by replay"): an
// operator replays the problem's journeys to a development destination on loopback that now
// keeps the field, and reads the progress, the verdicts, each journey's verdict and the export.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { drainAll, quietAnalyzer } from '../../src/findings/test-kit.ts';
import { useInterface } from './fixture.ts';
import { person, signInAs } from './people.ts';
import { problemScreenshot, problemsOf, WIDTHS, type ListedProblem } from './problems.ts';
import { startEchoDestination, TEST_ADMIN_TOKEN, type EchoDestination } from './server.ts';
import { adminApi } from './subjects.ts';

describe('verifying a fix in the browser', () => {
  const ui = useInterface();
  let echo: EchoDestination;
  let phone: ListedProblem;
  let runner: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    const analyzer = quietAnalyzer(ui.db.pool);
    await drainAll(analyzer, ui.db.pool);
    await analyzer.stop();
    phone = (await problemsOf(adminApi(ui.server.baseUrl, ui.demo.projectId), ui.demo.projectId, 'kind=lost')).find((p) => p.path === 'customer.phone' && !p.inTransit)!;
    // The fixed service: it answers with what it received, customer.phone included.
    echo = await startEchoDestination();
    const created = await fetch(`${ui.server.baseUrl}/v1/replay-destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': ui.demo.projectId, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fixed normalizer', baseUrl: echo.url, environmentType: 'development', headers: {} }),
    });
    expect(created.status).toBe(201);
    // Batches run on a worker instance (src/main.ts starts the runner): this test runs one beside
    // the server. Imported by its path: the runner lands with the batch replay routes.
    const runnerModule = path.resolve(import.meta.dirname, '../../src/problem-replay/runner.ts');
    const { startProblemReplayRunner } = (await import(runnerModule)) as {
      startProblemReplayRunner: (deps: { pool: unknown; keyring: unknown; allowedHosts: readonly string[]; version: string; now: () => number; pollMs?: number }) => { stop(): Promise<void> };
    };
    runner = startProblemReplayRunner({ pool: ui.db.pool, keyring: createKeyring({ current: TEST_ENCRYPTION_KEY }), allowedHosts: ['127.0.0.1'], version: 'test', now: Date.now, pollMs: 100 });
  });
  afterAll(async () => {
    await runner?.stop();
    await echo?.close();
  });

  it('replays the journeys to the chosen destination and shows every journey kept, with the export', { timeout: 120_000 }, async () => {
    const operator = await person(ui.db.pool, { [ui.demo.projectId]: 'operator' });
    const { page } = await ui.open('/ui/sign-in');
    await signInAs(page, ui.server.baseUrl, operator, `/ui/projects/${ui.demo.projectId}/problems/${phone.id}`);
    const verify = page.getByRole('region', { name: 'Verify a fix' });
    await verify.waitFor();
    expect(await verify.getByLabel('Journeys').inputValue()).toBe('50');
    await verify.getByLabel('Destination').selectOption({ label: 'fixed normalizer (development)' });
    await verify.getByLabel('Journeys').fill(String(phone.journeys));
    await verify.getByRole('button', { name: 'Start' }).click();

    await verify.getByRole('status').filter({ hasText: `Done: ${phone.journeys} of ${phone.journeys} journeys to fixed normalizer` }).waitFor({ timeout: 60_000 });
    expect(await verify.locator('progress').getAttribute('value')).toBe(String(phone.journeys));
    expect(await verify.getByRole('list', { name: 'Verdicts' }).locator('li').allTextContents()).toEqual([`${phone.journeys} kept`, '0 still lost', '0 failed']);
    const rows = verify.locator('table.verdicts tbody tr');
    await expect.poll(() => rows.count()).toBe(phone.journeys);
    expect(new Set(await rows.locator('.verdict').allTextContents())).toEqual(new Set(['kept']));
    expect(await rows.first().getByRole('link').getAttribute('href')).toMatch(new RegExp(`/ui/projects/${ui.demo.projectId}/journeys/jrn_demo_\\d+$`));
    expect(echo.received.length).toBe(phone.journeys);

    const exportHref = await verify.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await page.request.get(ui.server.baseUrl + exportHref!);
    expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
    // RFC 4180 lines, as the audit log's export: CRLF.
    expect((await csv.text()).split('\r\n')[0]).toBe('journeyId,verdict,replayId,error');

    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await ui.checkAccessibility(page, `a verified fix at ${size.width} px`);
      await problemScreenshot(page, `problem-verified-${size.width}`);
    }
  });
});
