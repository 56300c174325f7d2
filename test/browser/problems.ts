// Helpers of the Problems browser tests.
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Get } from './subjects.ts';

export const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

export interface ListedProblem {
  id: string;
  kind: string;
  path: string | null;
  inTransit: boolean;
  step: { service: string; name: string } | null;
  status: string;
  journeys: number;
  ignore: { until: string | null; moreJourneys: number | null } | null;
}

export async function problemsOf(get: Get, projectId: string, filters: string): Promise<ListedProblem[]> {
  return (await get<{ items: ListedProblem[] }>(`/v1/projects/${projectId}/problems?${filters}&limit=100`)).items;
}

const IMAGES = path.resolve(import.meta.dirname, '../../docs/images');

/** A look at the page: under /tmp always, and the docs' image with WRITE_SCREENSHOTS=1. */
export async function problemScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `/tmp/jtrace-${name}.png`, fullPage: true });
  if (process.env.WRITE_SCREENSHOTS === '1' && name.endsWith('1280')) await page.screenshot({ path: path.join(IMAGES, `${name.replace(/-1280$/, '')}.png`) });
}
