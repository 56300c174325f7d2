import { beforeAll, describe, expect, it } from 'vitest';
import { drainAll, quietAnalyzer } from '../../src/findings/test-kit.ts';
import { DEMO_JOURNEY_COUNT, demoOutcome } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';

/** Journeys that lost data complete: the header reaches them as it reaches failures. */
describe('lost data from the header', () => {
  const ui = useInterface();
  const lost = Array.from({ length: DEMO_JOURNEY_COUNT }, (_, i) => i).filter((i) => ['phone-lost', 'phone-dropped'].includes(demoOutcome(i)));

  beforeAll(async () => {
    const analyzer = quietAnalyzer(ui.db.pool);
    await drainAll(analyzer, ui.db.pool);
    await analyzer.stop();
  });

  for (const width of [1280, 390]) {
    it(`lists every journey that lost data, completed ones too, from the header (${width} px)`, async () => {
      const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys`));
      await page.setViewportSize({ width, height: 844 });
      await ui.signIn(page);
      const nav = page.getByRole('navigation', { name: 'Project' });
      await nav.getByRole('link', { name: 'Lost data' }).click();
      await page.getByRole('heading', { level: 1, name: 'Journeys that lost data' }).waitFor();
      expect(await nav.getByRole('link', { name: 'Lost data' }).getAttribute('aria-current')).toBe('page');
      expect(await nav.getByRole('link', { name: 'Journeys' }).getAttribute('aria-current')).toBeNull();
      expect(await page.getByRole('button', { name: 'Lost data only' }).getAttribute('aria-pressed')).toBe('true');
      const rows = page.locator('table.journeys tbody tr');
      await expect.poll(() => rows.count()).toBe(lost.length);
      const statuses = await page.locator('table.journeys tbody .badge').allTextContents();
      expect(statuses).toContain('completed');
      for (const text of await rows.allTextContents()) expect(text).toMatch(/lost\s*customer\.phone/u);
      await page.screenshot({ path: `/tmp/ui-search-shots/lost-${width}.png` });
      await ui.checkAccessibility(page, `the lost-data list at ${width} px`);

      await page.getByRole('button', { name: 'Lost data only' }).click();
      await page.getByRole('heading', { level: 1, name: 'Journeys' }).waitFor();
      expect(new URL(page.url()).searchParams.get('finding')).toBeNull();
    });
  }
});
