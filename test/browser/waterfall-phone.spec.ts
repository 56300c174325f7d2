import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { adminApi, findLostPhone } from './subjects.ts';

/** The waterfall's text at its CSS size on a phone and a laptop, not a 1000-unit drawing shrunk to fit. */
describe('the waterfall at a phone’s width', () => {
  const ui = useInterface();

  for (const [width, height] of [[390, 844], [1280, 800]] as const) {
    it(`draws its names and times at 11 px or more at ${width} px`, async () => {
      const { journey } = await findLostPhone(adminApi(ui.server.baseUrl, ui.demo.projectId));
      const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(journey.journeyId)}`));
      await page.setViewportSize({ width, height });
      await ui.signIn(page);
      const figure = page.locator('.waterfall');
      await figure.locator('text.lane-label').first().waitFor();
      // The rendered size of each text: its font size times the drawing's scale on screen.
      const sizes = await figure.locator('svg text').evaluateAll((texts) =>
        texts.map((text) => {
          const svg = (text as SVGTextElement).ownerSVGElement!;
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          return { text: text.textContent, px: parseFloat(getComputedStyle(text).fontSize) * scale };
        }),
      );
      expect(sizes.filter((s) => s.px < 11)).toEqual([]);
      expect(sizes.filter((s) => s.px >= 11).length).toBeGreaterThan(5);
      // Every lane's name and the bars fit the figure, which fits the window.
      const box = (await figure.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      const labels = await figure.locator('text.lane-label').evaluateAll((texts) => texts.map((t) => t.getBoundingClientRect().right));
      for (const right of labels) expect(right).toBeLessThanOrEqual(box.x + box.width);
      expect(await page.locator('.waterfall rect.step-lost').count()).toBe(1);
      await figure.screenshot({ path: `/tmp/ui-search-shots/waterfall-${width}.png` });
      await ui.checkAccessibility(page, `a journey's waterfall at ${width} px`);
    });
  }
});
