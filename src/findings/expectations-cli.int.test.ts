import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTestCli } from '../../test/helpers/cli.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import { createReadFixture, ingest, keyring, type ReadFixture } from '../query/test-fixtures.ts';

let fx: ReadFixture;
const cli = (argv: string[]) => runTestCli(argv, { pool: fx.db.pool, keyring });

beforeAll(async () => {
  fx = await createReadFixture();
  // Three completed journeys: the kept contact run, then a completion step.
  for (const id of ['jrn-a', 'jrn-b', 'jrn-c']) {
    const events = contactJourney(id, id === 'jrn-b' ? 'missing-publish' : 'kept');
    const last = events.at(-1)!;
    await ingest(fx, 'production', [...events, { ...last, id: `${id}-done`, operation: 'completed', name: 'done', timestamp: new Date(Date.parse(last.timestamp) + 2000).toISOString() }]);
  }
});
afterAll(async () => fx.close());

describe('expectation commands', () => {
  it('suggest from completed journeys, set and show', async () => {
    const suggested = await cli(['expectation:suggest', 'acme', 'contact', '--journeys', '10']);
    expect(suggested.code, suggested.err.join('\n')).toBe(0);
    expect(suggested.out[0]).toBe('from 3 completed journeys');
    expect(suggested.out).toContain('steps: receive -> normalize-contact -> persist -> publish (optional) -> consume -> deliver -> done');
    expect(suggested.out).toContain('final step: done');
    const command = suggested.out.at(-1)!.replace(/^to save it \(edit first if needed\): jtrace /, '');
    expect(command).toMatch(/^expectation:set acme contact --final done --step receive/);

    const set = await cli(['expectation:set', 'acme', 'contact', '--final', 'done', '--step', 'receive', '--step', 'publish', '--step', 'done', '--optional', 'publish', '--deadline', '600']);
    expect(set.code, set.err.join('\n')).toBe(0);
    const shown = await cli(['expectation:show', 'acme']);
    expect(shown.out).toEqual(['entity type: contact', 'steps: receive -> publish (optional) -> done', 'final step: done', 'longest gap: (none)', 'deadline: 600 s']);
  });

  it('refuses a missing final step, an unknown optional step and an unknown project', async () => {
    expect((await cli(['expectation:set', 'acme', 'contact'])).code).toBe(2);
    expect((await cli(['expectation:set', 'acme', 'contact', '--final', 'done', '--optional', 'x'])).code).toBe(2);
    // A final step outside the listed steps, as the route refuses it.
    expect((await cli(['expectation:set', 'acme', 'contact', '--final', 'done', '--step', 'receive'])).code).toBe(2);
    expect((await cli(['expectation:show', 'nope'])).code).toBe(1);
    expect((await cli(['expectation:show', 'acme', '--remove', 'order'])).code).toBe(1);
  });
});
