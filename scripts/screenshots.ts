// Writes docs/images/*.png: the journeys list, a journey with its diff, a replay result, a followed
// field, a value lost in transit marked on the timeline, two journeys compared, two pages at a phone's width, the findings
// filter with the top lost fields, the problems list and a problem, expectations and alert rules, and a journey as a
// viewer sees it, from the demo data on a throw-away database
// (npm run screenshots; needs web/dist and /usr/bin/chromium).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/browser/browser.ts';
import { loadDemo } from '../test/browser/demo-data.ts';
import { startEchoDestination, startServer } from '../test/browser/server.ts';
import { signedInPage, startDatabase } from '../test/browser/stack.ts';
import { drainAll, quietAnalyzer } from '../src/findings/test-kit.ts';
import { person, signInAs } from '../test/browser/people.ts';
import { adminApi, findKeptPhone, findLostInTransit, findLostPhone } from '../test/browser/subjects.ts';

const OUT = path.resolve(import.meta.dirname, '../docs/images');

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(OUT, name), fullPage: false });
  console.log(`wrote docs/images/${name}`);
}

const stack = await startDatabase();
const server = await startServer(stack);
const echo = await startEchoDestination();
const browser = await launchBrowser({ width: 1440, height: 900 });
try {
  mkdirSync(OUT, { recursive: true });
  const demo = await loadDemo(stack.pool, server.baseUrl);
  // Findings as the server's analyzer stores them.
  const analyzer = quietAnalyzer(stack.pool);
  await drainAll(analyzer, stack.pool);
  await analyzer.stop();
  const { journey, eventId } = await findLostPhone(adminApi(server.baseUrl, demo.projectId));

  const list = await signedInPage(browser.context, server.baseUrl, `/ui/projects/${demo.projectId}/journeys`);
  await list.locator('table.journeys tbody tr').first().waitFor();
  await list.locator('.chart svg rect').first().waitFor();
  await shoot(list, 'journeys.png');

  const journeyPath = `/ui/projects/${demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?event=${encodeURIComponent(eventId)}`;
  await list.goto(server.baseUrl + journeyPath);
  await list.locator('table.diff').first().waitFor();
  await shoot(list, 'journey-diff.png');

  const replay = list;
  await replay.getByRole('heading', { name: 'Replay this event' }).waitFor();
  if (await replay.getByRole('heading', { name: 'No replay destination yet' }).isVisible()) {
    await replay.getByLabel('Base URL').fill(echo.url);
    await replay.getByRole('button', { name: 'Create destination' }).click();
  }
  await replay.getByLabel('Path').fill('/contacts/replay');
  await replay.getByRole('button', { name: 'Preview' }).click();
  await replay.getByRole('button', { name: 'Send replay' }).click();
  const result = replay.getByRole('region', { name: 'Replay result' });
  await result.waitFor();
  await replay.locator('.detail-column').evaluate((column) => column.scrollTo(0, column.scrollHeight));
  await result.scrollIntoViewIfNeeded();
  await shoot(replay, 'replay.png');

  const field = 'customer.phone';
  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}?field=${field}`);
  await list.locator('.field-trail li.lost-here').waitFor();
  await list.locator('.forensics').scrollIntoViewIfNeeded();
  await shoot(list, 'journey-field.png');

  const losing = (await list.locator('.field-trail li.lost-here .trail-step-head button').textContent())!.split(' · ')[1]!;
  const kept = await findKeptPhone(adminApi(server.baseUrl, demo.projectId), journey.entity.type, losing);
  const comparePath = `/ui/projects/${demo.projectId}/compare?a=${encodeURIComponent(journey.journeyId)}&b=${encodeURIComponent(kept.journeyId)}`;
  await list.goto(server.baseUrl + comparePath);
  await list.locator('table.comparison').waitFor();
  await shoot(list, 'compare.png');

  // A phone's width: the journey opened on its losing step, tables as stacked rows.
  await list.setViewportSize({ width: 390, height: 844 });
  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}`);
  await list.locator('table.diff').first().waitFor();
  await list.locator('.detail-column').scrollIntoViewIfNeeded();
  await shoot(list, 'journey-phone.png');
  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/journeys`);
  await list.locator('table.journeys tbody tr').first().waitFor();
  // At a phone's width the chart's zoom hint is hidden (first-screen density); it is there once the chart is.
  await list.locator('.chart-zoom').waitFor({ state: 'attached' });
  await shoot(list, 'journeys-phone.png');
  await list.setViewportSize({ width: 1440, height: 900 });

  const transit = await findLostInTransit(adminApi(server.baseUrl, demo.projectId));
  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/journeys/${encodeURIComponent(transit.journey.journeyId)}`);
  await list.locator('.timeline .transit-loss').waitFor();
  await list.locator('.timeline .transit-loss').scrollIntoViewIfNeeded();
  await shoot(list, 'journey-transit.png');

  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/journeys?window=hour&finding=lost&path=customer.phone`);
  await list.getByRole('region', { name: 'Top lost fields' }).waitFor();
  await list.locator('table.journeys .findings-cell').first().waitFor();
  await shoot(list, 'findings.png');

  // Problems: the list, and the most common lost field's page (docs/problems.md, "In the interface").
  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/problems`);
  await list.locator('table.problems svg.sparkline').first().waitFor();
  await shoot(list, 'problems.png');
  await list.getByRole('link', { name: 'lost customer.phone at normalize-contact' }).click();
  await list.getByRole('region', { name: 'Releases' }).waitFor();
  await shoot(list, 'problem.png');

  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/expectations`);
  await list.locator('table.settings-table').waitFor();
  await shoot(list, 'expectations.png');

  await list.goto(server.baseUrl + `/ui/projects/${demo.projectId}/alerts`);
  await list.getByRole('form', { name: 'New alert rule' }).waitFor();
  await shoot(list, 'alerts.png');

  // The same journey as a viewer sees it: no replay, deletion or settings beyond the projects list.
  const viewerBrowser = await launchBrowser({ width: 1440, height: 900 });
  try {
    const viewer = await person(stack.pool, { [demo.projectId]: 'viewer' }, { email: 'viewer@example.com' });
    const page = await viewerBrowser.context.newPage();
    await signInAs(page, server.baseUrl, viewer, journeyPath);
    await page.locator('table.diff').first().waitFor();
    await shoot(page, 'journey-viewer.png');
  } finally {
    await viewerBrowser.close();
  }
} finally {
  await browser.close();
  await echo.close();
  await server.close();
  await stack.stop();
}
