import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { drainAll, quietAnalyzer } from '../../src/findings/test-kit.ts';
import { useInterface } from './fixture.ts';

/** Rows of the journeys list wholly inside the first screen, before any scrolling. */
async function rowsOnFirstScreen(page: Page): Promise<number> {
  return page.evaluate(() => {
    const height = window.innerHeight;
    return [...document.querySelectorAll('table.journeys tbody tr')].filter((row) => {
      const box = row.getBoundingClientRect();
      return box.height > 0 && box.top >= 0 && box.bottom <= height;
    }).length;
  });
}

describe('the journeys list’s first screen', () => {
  const ui = useInterface();

  beforeAll(async () => {
    // With findings, the top lost fields show as they do on a real installation.
    const analyzer = quietAnalyzer(ui.db.pool);
    await drainAll(analyzer, ui.db.pool);
    await analyzer.stop();
  });

  for (const [width, height, wanted] of [[1280, 800, 8], [390, 844, 2]] as const) {
    it(`shows at least ${wanted} journeys before scrolling at ${width}×${height}`, async () => {
      const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys?window=week`));
      await page.setViewportSize({ width, height });
      await ui.signIn(page);
      await page.locator('table.journeys tbody tr').first().waitFor();
      await page.getByRole('region', { name: 'Top lost fields' }).waitFor();
      // The chart is drawn, or on a phone folded under a line that says what it counts.
      await page.locator('details.chart-fold').waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `/tmp/ui-search-shots/first-screen-${width}.png` });
      expect(await rowsOnFirstScreen(page)).toBeGreaterThanOrEqual(wanted);
      await ui.checkAccessibility(page, `the journeys list at ${width} px`);
    });
  }
});
