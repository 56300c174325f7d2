// Interface benchmark (npm run bench:ui; not a test): time until the journeys page and a journey
// page of 10,000 events are usable in Chromium, each further page of its rows, and "j", against the real server on a throw-away embedded
// database. Prints a table and replaces the `## Web interface` section of docs/benchmarks.md.
// BENCH_UI_RUNS sets the runs per page (default 5; the first run of each page is a warm-up);
// BENCH_UI_EVENTS the long journey's events (default 10,000).
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { createKeyring } from '../src/crypto/keyring.ts';
import { seedProject, TEST_ENCRYPTION_KEY } from '../test/helpers/app.ts';
import { launchBrowser } from '../test/browser/browser.ts';
import { loadDemo } from '../test/browser/demo-data.ts';
import { longJourney, sendEvents } from '../test/browser/journeys.ts';
import { startServer } from '../test/browser/server.ts';
import { signedInPage, startDatabase } from '../test/browser/stack.ts';
import { percentiles, writeSection } from './query-report.ts';
import { arm, measured } from './ui-measure.ts';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const EVENTS = Number(process.env.BENCH_UI_EVENTS ?? 10_000);
/** Further pages of rows loaded per run of the paging measurement. */
const PAGES = 5;

const loadAtStart = os.loadavg()[0]!;
const stack = await startDatabase();
const server = await startServer(stack);
const browser = await launchBrowser({ width: 1440, height: 900 });
try {
  const demo = await loadDemo(stack.pool, server.baseUrl);
  const bench = await seedProject(stack.pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), 'bench');
  const journeyId = 'jrn_bench_long';
  const started = Date.now();
  await sendEvents(server.baseUrl, bench.apiKey, longJourney(journeyId, EVENTS, 'production'));
  console.log(`sent ${EVENTS} events in ${Date.now() - started} ms`);
  const first = await signedInPage(browser.context, server.baseUrl, '/ui/');
  await first.close();

  /**
   * Milliseconds from navigation until `ready` resolves in a fresh tab (session cookie kept), or
   * the durations `ready` measured itself when it returns them.
   */
  async function time(path: string, ready: (page: Page) => Promise<number[] | void>): Promise<number[]> {
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const page = await browser.context.newPage();
      const t0 = performance.now();
      await page.goto(server.baseUrl + path);
      const measured = await ready(page);
      if (run > 0) samples.push(...(measured ?? [performance.now() - t0]));
      await page.close();
    }
    return samples;
  }

  const results: { name: string; samples: number[] }[] = [];
  results.push({
    name: 'Journeys page (last day, demo data): list and chart drawn',
    samples: await time(`/ui/projects/${demo.projectId}/journeys`, async (page) => {
      await page.locator('table.journeys tbody tr').first().waitFor();
      await page.locator('.chart svg').waitFor();
    }),
  });
  const journeyPath = `/ui/projects/${bench.projectId}/journeys/${journeyId}`;
  results.push({
    name: `Journey of ${EVENTS} events: heading, waterfall and the first timeline rows`,
    samples: await time(journeyPath, async (page) => {
      await page.locator('.timeline .event').first().waitFor();
      await page.locator('.waterfall svg').waitFor();
    }),
  });
  // A long journey draws only the rows in view. The next three are timed inside the page, from
  // the input event until the change is painted (bench/ui-measure.ts): each further page of 100
  // from the click on "Load more" until the button counts it, and "j" from the key until the next
  // row is selected, then until its detail is shown (PAGES of each a run).
  const fetches: number[] = [];
  const keyDurations: number[] = [];
  results.push({
    name: `Journey of ${EVENTS} events: each further page of 100 rows ("Load more"), click to paint`,
    samples: await time(journeyPath, async (page) => {
      const more = page.getByRole('button', { name: /Load more events/ });
      await more.waitFor();
      const samples: number[] = [];
      for (let pageNo = 1; pageNo <= PAGES; pageNo += 1) {
        await arm(page, 'click', 'button', `(${(pageNo + 1) * 100} of`);
        await more.click();
        samples.push((await measured(page)).toPaint);
        // How long the page's request took, to tell the network from the drawing.
        fetches.push(await page.evaluate(() => (performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/events?')).at(-1) as PerformanceResourceTiming).duration));
      }
      return samples;
    }),
  });
  results.push({
    name: `Journey of ${EVENTS} events: key "j" until the next row is selected, key to paint`,
    samples: await time(`${journeyPath}?event=${journeyId}_e10`, async (page) => {
      await page.getByRole('heading', { level: 2, name: /step-10 / }).waitFor();
      const samples: number[] = [];
      for (let step = 11; step < 11 + PAGES; step += 1) {
        await arm(page, 'keydown', '.timeline li.event-selected', `step-${step} `);
        await page.keyboard.press('j');
        const timing = await measured(page);
        samples.push(timing.toPaint);
        keyDurations.push(timing.eventDuration ?? 0);
      }
      return samples;
    }),
  });
  results.push({
    name: `Journey of ${EVENTS} events: key "j" until the next event's detail is shown, key to paint`,
    samples: await time(`${journeyPath}?event=${journeyId}_e10`, async (page) => {
      await page.getByRole('heading', { level: 2, name: /step-10 / }).waitFor();
      const samples: number[] = [];
      for (let step = 11; step < 11 + PAGES; step += 1) {
        await arm(page, 'keydown', '#event-heading', `step-${step} `);
        await page.keyboard.press('j');
        samples.push((await measured(page)).toPaint);
        await page.getByRole('heading', { level: 2, name: new RegExp(`step-${step} `) }).waitFor();
      }
      return samples;
    }),
  });
  results.push({ name: `Journey of ${EVENTS} events: the request for a page of 100 rows (Resource Timing)`, samples: fetches.slice(PAGES) });
  results.push({ name: `Journey of ${EVENTS} events: "j" keydown's Event Timing duration (0 when under 16 ms)`, samples: keyDurations.slice(PAGES) });

  // The bundle a first visit downloads: every built script and stylesheet, raw and gzipped.
  const assets = path.resolve(import.meta.dirname, '../web/dist/assets');
  const bundle = { js: { raw: 0, gzip: 0 }, css: { raw: 0, gzip: 0 } };
  for (const file of readdirSync(assets)) {
    const kind = file.endsWith('.js') ? 'js' : file.endsWith('.css') ? 'css' : null;
    if (!kind) continue;
    const bytes = readFileSync(path.join(assets, file));
    bundle[kind].raw += bytes.length;
    bundle[kind].gzip += gzipSync(bytes).length;
  }
  const kb = (n: number) => (n / 1000).toFixed(1);

  const rows = results.map(({ name, samples }) => {
    const p = percentiles(samples);
    return `| ${name} | ${samples.length} | ${p.p50.toFixed(0)} | ${p.p95.toFixed(0)} |`;
  });
  const section = [
    '## Web interface',
    '',
    `\`npm run bench:ui\`: Chromium ${browser.context.browser()?.version() ?? ''} (headless, Debian) against the real server and an embedded`,
    `PostgreSQL on this machine (${os.cpus().length} cores, Node ${process.version}); a fresh tab per run with the session cookie`,
    'already set, timed from navigation until the page is usable. The first run of each page is a warm-up and not counted.',
    `Load average (1 min) ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0]!.toFixed(1)} at the end${Math.max(loadAtStart, os.loadavg()[0]!) > os.cpus().length ? ': other work shared the machine' : ', on ' + os.cpus().length + ' cores'}.`,
    '',
    'The long journey\'s further pages and "j" are timed inside the page, from the input event (seen first, in the capture',
    'phase) until the expected change is in the document and the next frame is painted (bench/ui-measure.ts), five of',
    'each per run; the request row is Resource Timing of the page\'s read, the last row Chromium\'s Event Timing of the key.',
    '',
    '| Page | Samples | p50 ms | p95 ms |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Bundle (web/dist/assets): scripts ${kb(bundle.js.raw)} kB (${kb(bundle.js.gzip)} kB gzipped), styles ${kb(bundle.css.raw)} kB (${kb(bundle.css.gzip)} kB gzipped).`,
    '',
  ].join('\n');
  console.log(section);
  writeSection(new URL('../docs/benchmarks.md', import.meta.url), '## Web interface', section);
} finally {
  await browser.close();
  await server.close();
  await stack.stop();
}
