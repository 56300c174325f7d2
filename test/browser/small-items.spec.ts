import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_JOURNEY_COUNT, demoOutcome } from '../../src/web/demo-journeys.ts';
import { useInterface } from './fixture.ts';
import { adminApi, findLostInTransit } from './subjects.ts';

const journeyId = (i: number) => `jrn_demo_${1001 + i}`;
const firstWith = (outcome: string) => journeyId([...Array(DEMO_JOURNEY_COUNT).keys()].find((i) => demoOutcome(i) === outcome)!);

describe('the small things a first look trips over', () => {
  const ui = useInterface();
  const p = () => `/ui/projects/${ui.demo.projectId}`;

  async function signedIn(path: string): Promise<Page> {
    const { page } = await ui.open('/ui/sign-in?next=' + encodeURIComponent(path));
    await ui.signIn(page);
    return page;
  }

  it('keeps the in-transit alarm for a value lost in transit, not for one that appeared there', async () => {
    const page = await signedIn(`${p()}/journeys/${firstWith('completed')}`);
    const template = page.locator('table.changes tbody tr', { hasText: 'template' });
    await template.waitFor();
    expect(await template.locator('.kind').textContent()).toBe('appeared');
    expect(await template.locator('.transit').count()).toBe(0);
    expect(await template.locator('.handoff').textContent()).toContain('in transit');

    const lost = await findLostInTransit(adminApi(ui.server.baseUrl, ui.demo.projectId));
    await page.goto(`${ui.server.baseUrl}${p()}/journeys/${lost.journey.journeyId}`);
    const phone = page.locator('table.changes tbody tr.diff-lost', { hasText: lost.path }).first();
    await phone.waitFor();
    expect(await phone.locator('.transit').count()).toBe(1);
  });

  it('says a masked alias is masked instead of showing a lone ellipsis', async () => {
    const page = await signedIn(`${p()}/journeys/${journeyId(0)}`);
    const crm = page.locator('.aka .alias-chip', { hasText: 'crm' });
    await crm.waitFor();
    expect(await crm.textContent()).toBe('crm: masked');
  });

  it('counts the attempts of a failed delivery as its dead-letter error does', async () => {
    const page = await signedIn(`${p()}/journeys/${firstWith('failed')}`);
    const heading = page.locator('.attempts-heading');
    await heading.waitFor();
    expect(await heading.textContent()).toMatch(/deliver: 3 attempts/);
  });

  it('says an empty chart is empty', async () => {
    const page = await signedIn(`${p()}/journeys?q=${encodeURIComponent('no-such-contact-anywhere')}`);
    const legend = page.locator('.chart figcaption');
    await legend.waitFor();
    expect(await legend.textContent()).toContain('no journey in this window');
    expect(await legend.textContent()).not.toContain('most 1 in a bar');
  });

  it('points the sign-in hint at the data folder setting, not a fixed path', async () => {
    const { page } = await ui.open('/ui/sign-in');
    const help = page.locator('#token-help');
    await help.waitFor();
    expect(await help.textContent()).toContain('JTRACE_DATA_DIR');
    expect(await help.textContent()).not.toContain('.data/secrets.env');
  });
});
