// Values at the protocol's limits and values carrying Unicode direction controls: the pages stay
// within the window, every control stays reachable, and no user value reorders the interface's text.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ENVIRONMENT } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';
import { sendEvents } from './journeys.ts';

const LONG_KEY = 'k'.repeat(5000);
const BIDI_ID = 'o-\u202E1234';

function hostileEvents(now: number): Record<string, unknown>[] {
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  return [
    {
      id: 'evt_long_1', journeyId: 'jrn_long', environment: DEMO_ENVIRONMENT, operation: 'transformed', timestamp: at(12),
      journeyLabel: 'L'.repeat(200), service: 'S'.repeat(128), name: 'N'.repeat(256), durationMs: 599_700,
      entity: { type: 'T'.repeat(128), id: 'I'.repeat(512) },
      aliases: { ['t'.repeat(128)]: 'v'.repeat(512) }, displayableAliases: ['t'.repeat(128)],
      input: { [LONG_KEY]: 1, long: 'A'.repeat(20_000) },
      output: { [LONG_KEY]: 2, other: 'B'.repeat(20_000) },
      error: { type: 'E'.repeat(256), message: 'M'.repeat(4096), code: 'C'.repeat(256) },
    },
    {
      id: 'evt_bidi_1', journeyId: 'jrn_bidi', environment: DEMO_ENVIRONMENT, operation: 'received', timestamp: at(11),
      service: 'pay\u202Ement', name: 'ste\u200Fp\u202E!desrever',
      entity: { type: 'order', id: BIDI_ID },
      aliases: { email: 'a\u202Emoc.elpmaxe@bob' }, displayableAliases: ['email'],
      input: { 'k\u202Eey': 'v\u202Ealue' }, output: { 'k\u202Eey': 'v' },
    },
  ];
}

/** The page is no wider than the window, and each matched element lies within it. */
async function expectWithinWindow(page: Page, selector: string, what: string, text?: string): Promise<void> {
  const layout = await page.evaluate(({ sel, only }) => {
    const elements = [...document.querySelectorAll(sel)].filter((element) => only === null || element.textContent === only);
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      outside: elements.map((element) => element.getBoundingClientRect()).filter((box) => box.left < 0 || box.right > window.innerWidth).length,
      count: elements.length,
    };
  }, { sel: selector, only: text ?? null });
  expect(layout.scrollWidth, `page width on ${what}`).toBeLessThanOrEqual(layout.innerWidth);
  expect(layout.count, `${selector} on ${what}`).toBeGreaterThan(0);
  expect(layout.outside, `${selector} outside the window on ${what}`).toBe(0);
}

/** The element holding `text` isolates it, and no raw direction control reaches the page's text. */
async function expectIsolated(page: Page, selector: string, text: string): Promise<void> {
  const found = await page.evaluate(({ sel, shown }) => {
    const holder = [...document.querySelectorAll(sel)].find((element) => element.textContent === shown);
    return {
      isolation: holder ? getComputedStyle(holder).unicodeBidi : null,
      tag: holder?.tagName ?? null,
      rawControls: /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(document.body.textContent ?? ''),
    };
  }, { sel: selector, shown: text });
  expect(found.tag, `an element showing ${text}`).not.toBeNull();
  expect(found.isolation === 'isolate' || found.tag === 'BDI', `${text} isolated`).toBe(true);
  expect(found.rawControls, 'a raw direction control in the page text').toBe(false);
}

describe('long and direction-changing values in the browser', () => {
  const ui = useInterface();
  beforeAll(async () => {
    await sendEvents(ui.server.baseUrl, ui.demo.apiKey, hostileEvents(Date.now()));
  });

  async function signedIn(path: string): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    return page;
  }

  it('keeps the journeys list within the window and every user value isolated', async () => {
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys`);
    await page.locator('table.journeys a.journey-link', { hasText: 'L'.repeat(200) }).waitFor();
    await expectWithinWindow(page, 'table.journeys thead th', 'the journeys list');
    await expectWithinWindow(page, 'table.journeys tbody .badge', 'the journeys list');
    expect(await page.getByRole('columnheader', { name: 'Status' }).isVisible()).toBe(true);
    // The entity id is shown with its override as a marked code point, in an isolated element
    // (the journey's title, as it has no label; the second line does not repeat it).
    await expectIsolated(page, 'table.journeys a.journey-link .user-text', 'o-U+202E1234');
    expect(await page.locator('table.journeys .alias-chip', { hasText: 'elpmaxe' }).first().textContent()).toBe('email: aU+202Emoc.elpmaxe@bob');
    await ui.checkAccessibility(page, 'the journeys list with long and direction-changing values');
  });

  it('keeps a journey of long values within the window, its Follow buttons reachable', async () => {
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/jrn_long?event=evt_long_1`);
    await page.locator('table.diff').waitFor();
    await page.locator('table.changes').waitFor();
    await expectWithinWindow(page, 'button', 'a journey of long values', `Follow ${LONG_KEY}`);
    await expectWithinWindow(page, '.page-heading .actions button', 'a journey of long values');
    // The timeline's step text wraps within its column instead of running under the detail panel.
    const overlap = await page.evaluate(() => {
      const name = document.querySelector('.timeline .col-name')!.getBoundingClientRect();
      return name.right - document.querySelector('.detail-column')!.getBoundingClientRect().left;
    });
    expect(overlap).toBeLessThanOrEqual(0);
    expect(await page.locator('.timeline .col-duration').first().textContent()).toBe('10 min');
    // A 5,000-character key is cut with a button that shows it whole, and it still fits.
    await page.locator('table.diff').getByRole('button', { name: 'show all 5,000 characters' }).click();
    await expectWithinWindow(page, 'table.diff button', 'a journey with a long key shown whole', `Follow ${LONG_KEY}`);
    await ui.checkAccessibility(page, 'a journey of long values');
  });

  it('shows direction controls in a journey as code points, isolated from the text around them', async () => {
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/jrn_bidi?event=evt_bidi_1`);
    await page.locator('#event-heading').waitFor();
    await expectIsolated(page, '.journey-meta .user-text', 'o-U+202E1234');
    await expectIsolated(page, '#event-heading .user-text', 'payU+202Ement');
    await expectIsolated(page, '.aka .alias-chip .user-text', 'aU+202Emoc.elpmaxe@bob');
    expect(await page.locator('#event-heading').textContent()).toBe('payU+202Ement · steU+200FpU+202E!desrever (received)');
    expect(await page.locator('.payloads pre').first().textContent()).toContain('"k\\u202eey": "v\\u202ealue"');
    expect(await page.title()).toMatch(/^order o-\[U\+202E\]1234 · /);
    await expectWithinWindow(page, '.page-heading .actions button', 'a journey with direction controls');
    await ui.checkAccessibility(page, 'a journey with direction controls');
  });
});
