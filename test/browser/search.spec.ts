import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { drainAll, quietAnalyzer } from '../../src/findings/test-kit.ts';
import { buildDemoJourneys } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';

/** What a support person types into the header's search box. */
describe('search as support types it', () => {
  const ui = useInterface();
  const demo = buildDemoJourneys(Date.now());
  const withEmail = demo.find((journey) => journey.events.some((e) => (e.aliases as Record<string, string> | undefined)?.email))!;
  const email = withEmail.events.map((e) => (e.aliases as Record<string, string> | undefined)?.email).find(Boolean)!;

  beforeAll(async () => {
    const analyzer = quietAnalyzer(ui.db.pool);
    await drainAll(analyzer, ui.db.pool);
    await analyzer.stop();
  });

  async function searchFor(q: string, width: number): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/search?q=${encodeURIComponent(q)}`));
    await page.setViewportSize({ width, height: 900 });
    await ui.signIn(page);
    await page.locator('h1', { hasText: 'Find a record' }).waitFor();
    return page;
  }

  for (const width of [1280, 390]) {
    it(`finds a demo contact by the e-mail in upper case, as its webhook sent it, and says so (${width} px)`, async () => {
      const page = await searchFor(email.toUpperCase(), width);
      const note = page.getByRole('status').filter({ hasText: 'ignoring case' });
      await note.waitFor();
      expect(await note.textContent()).toMatch(/exactly: 1 journey matches ignoring case/u);
      const rows = page.locator('table.journeys tbody tr');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().locator('a.journey-link').getAttribute('href')).toContain(encodeURIComponent(withEmail.journeyId));
      await page.screenshot({ path: `/tmp/ui-search-shots/search-loose-${width}.png`, fullPage: true });
      await ui.checkAccessibility(page, `a loose search at ${width} px`);
    });
  }

  it('offers the journeys that lost a field a word names', async () => {
    const page = await searchFor('phone', 1280);
    const hints = page.getByRole('region', { name: /Fields named/u });
    await hints.waitFor();
    const link = hints.getByRole('link', { name: /lost customer\.phone/u });
    expect(await link.textContent()).toMatch(/^\d+ journeys? lost customer\.phone$/u);
    await page.getByRole('status').filter({ hasText: 'Nothing matches' }).waitFor();
    await page.screenshot({ path: '/tmp/ui-search-shots/search-field.png', fullPage: true });
    await ui.checkAccessibility(page, 'a search for a field name');
    await link.click();
    await page.locator('table.journeys tbody tr').first().waitFor();
    const url = new URL(page.url());
    expect([url.searchParams.get('finding'), url.searchParams.get('path')]).toEqual(['lost', 'customer.phone']);
  });

  it('still says nothing matches when neither form finds anything', async () => {
    const page = await searchFor('NOBODY@EXAMPLE.ORG', 1280);
    await page.getByRole('status').filter({ hasText: 'not even ignoring case' }).waitFor();
    expect(await page.locator('table.journeys').count()).toBe(0);
  });
});
