// In-page timing for bench:ui: from the input event (key or click, seen first in the capture
// phase) until the page has changed as expected and painted, with no polling from outside. The
// test runner's own waits poll on a back-off (0, 20, 50, 100, 100, 500 ms), which added up to a
// few hundred milliseconds to each figure. Chromium's Event Timing entry for the input (handlers
// to next paint) is read as well: null when under its 16 ms floor.
import type { Page } from 'playwright-core';

export interface InputTiming {
  /** Input event until the expected change is in the document and the next frame is painted. */
  toPaint: number;
  /** Event Timing's duration of the input (start to next paint after its handlers), if ≥ 16 ms. */
  eventDuration: number | null;
}

/**
 * Arms the page: the next `type` event starts the clock, which stops at the first paint after an
 * element matching `selector` contains `text`.
 */
export async function arm(page: Page, type: 'keydown' | 'click', selector: string, text: string): Promise<void> {
  // tsx keeps function names through a helper the page does not have.
  await page.evaluate('window.__name ??= (f) => f');
  await page.evaluate(
    ({ type, selector, text }) => {
      const w = window as unknown as { __timing: Promise<{ toPaint: number; eventDuration: number | null }> };
      w.__timing = new Promise((resolve) => {
        let t0: number | null = null;
        let eventDuration: number | null = null;
        const entries = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) if (entry.name === type) eventDuration = Math.max(eventDuration ?? 0, entry.duration);
        });
        entries.observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit);
        addEventListener(type, () => (t0 ??= performance.now()), { capture: true, once: true });
        const shown = () => [...document.querySelectorAll(selector)].some((element) => (element.textContent ?? '').includes(text));
        const changes = new MutationObserver(() => {
          if (t0 === null || !shown()) return;
          changes.disconnect();
          const start = t0;
          // The frame that shows the change is painted between this callback and the next task.
          requestAnimationFrame(() => {
            const channel = new MessageChannel();
            channel.port1.onmessage = () => {
              const toPaint = performance.now() - start;
              // Event Timing reports after the paint: give it a moment.
              setTimeout(() => {
                entries.disconnect();
                resolve({ toPaint, eventDuration });
              }, 200);
            };
            channel.port2.postMessage(0);
          });
        });
        changes.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      });
    },
    { type, selector, text },
  );
}

export async function measured(page: Page): Promise<InputTiming> {
  return page.evaluate(() => (window as unknown as { __timing: Promise<InputTiming> }).__timing);
}
