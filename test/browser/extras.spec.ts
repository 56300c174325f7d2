import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useInterface } from './fixture.ts';
import { adminApi, recentJourneys } from './subjects.ts';

describe('search forms, downloads and the footer', () => {
  const ui = useInterface();

  async function signedIn(path: string): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    return page;
  }

  // An e-mail in other capitals now finds its journey ignoring case (search.spec.ts); the forms
  // tried are still listed when neither the exact nor the loose match finds anything.
  it('lists the other forms it tried when an e-mail finds nothing exactly or ignoring case', async () => {
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/search?q=${encodeURIComponent('NOBODY.1001@EXAMPLE.COM')}`);
    const hint = page.getByRole('region', { name: 'No journey for this exact value' });
    await hint.waitFor();
    expect(await hint.textContent()).toContain('Identifiers are matched exactly');
    const tried = hint.getByRole('listitem');
    await expect.poll(() => tried.first().textContent()).toBe('nobody.1001@example.com: no journey');
    await ui.checkAccessibility(page, 'a search with other forms');
  });

  it('downloads a journey and its events as JSON', async () => {
    const target = (await recentJourneys(adminApi(ui.server.baseUrl, ui.demo.projectId)))[0]!;
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys/${encodeURIComponent(target.journeyId)}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download JSON' }).click()]);
    expect(download.suggestedFilename()).toBe(`${target.journeyId}.json`);
    const file = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { journey: { journeyId: string; eventCount: number }; events: { id: string }[] };
    expect(file.journey.journeyId).toBe(target.journeyId);
    expect(file.events).toHaveLength(file.journey.eventCount);
  });

  it('names the version in the footer', async () => {
    const page = await signedIn(`/ui/projects/${ui.demo.projectId}/journeys`);
    const footer = page.getByRole('contentinfo');
    await expect.poll(() => footer.textContent()).toBe('jtrace 0.0.0');
  });
});
