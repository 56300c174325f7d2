import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../audit/audit-log.ts';
import { listSettingsChanges } from '../audit/settings-history.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import type { TestDatabase } from '../../test/helpers/database.ts';
import { closeDestinationTestBed, createDestinationVia, ingestEvent, openDestinationTestBed, replay, type Target } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let keyring: Keyring;
let target: Target;
let acme: SeededProject;
let other: SeededProject;

/** The CLI in-process against the test pool, output captured as text. */
async function cli(...argv: string[]) {
  const { code, out, err } = await runTestCli(argv, { pool: db.pool, keyring });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function disabled(id: string): Promise<boolean | undefined> {
  const result = await db.pool.query<{ disabled: boolean }>('SELECT disabled FROM replay_destinations WHERE id = $1', [id]);
  return result.rows[0]?.disabled;
}

beforeAll(async () => {
  ({ db, app, keyring, acme, other, target } = await openDestinationTestBed());
});
afterAll(() => closeDestinationTestBed({ db, app, target }));

describe('destination:disable and destination:enable', () => {
  it('toggles the flag, which replays then honour', async () => {
    const destination = await createDestinationVia(app, acme.projectId, { name: 'toggle me', baseUrl: target.origin });
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });

    const off = await cli('destination:disable', 'acme', destination.id);
    expect(off).toMatchObject({ code: 0, err: '' });
    expect(off.out).toContain('disabled');
    expect(await disabled(destination.id)).toBe(true);
    const refused = await replay(app, acme.projectId, { eventId, destinationId: destination.id, path: '/' });
    expect([refused.statusCode, refused.json().error.code]).toEqual([409, 'destination_disabled']);

    // The project may also be named by its id, as the API names it.
    expect((await cli('destination:enable', acme.projectId, destination.id.toUpperCase())).code).toBe(0);
    expect(await disabled(destination.id)).toBe(false);
    expect((await replay(app, acme.projectId, { eventId, destinationId: destination.id, path: '/' })).statusCode).toBe(200);

    // Each toggle is a settings change by the CLI; a toggle to the state it holds records nothing.
    expect((await cli('destination:enable', 'acme', destination.id)).code).toBe(0);
    const history = (await listSettingsChanges(db.pool, acme.projectId)).filter((row) => row.subject === destination.id);
    expect(history.map((row) => [row.action, row.before, row.after, row.actor.kind])).toEqual([
      ['replay_destination.enabled', { disabled: true }, { disabled: false }, 'cli'],
      ['replay_destination.disabled', { disabled: false }, { disabled: true }, 'cli'],
    ]);
    expect((await listAudit(db.pool, acme.projectId)).map((row) => row.action)).not.toContain('replay_destination.disabled');
  });

  it('exits 1 for an unknown project or destination, or one of another project', async () => {
    const foreign = await createDestinationVia(app, other.projectId, { baseUrl: target.origin });
    expect((await cli('destination:disable', 'nope', foreign.id)).code).toBe(1);
    expect((await cli('destination:disable', 'acme', foreign.id)).code).toBe(1);
    expect((await cli('destination:disable', 'acme', 'not-a-uuid')).code).toBe(1);
    expect((await cli('destination:enable', 'acme', '6f1f0a52-52c8-4c3a-9d0e-1c1a1b1c1d1e')).code).toBe(1);
    expect(await disabled(foreign.id)).toBe(false);
  });

  it('exits 2 on usage errors', async () => {
    expect((await cli('destination:disable', 'acme')).code).toBe(2);
    expect((await cli('destination:disable', 'acme', 'a', 'extra')).code).toBe(2);
    expect((await cli('destination:disable', 'acme', '—id')).code).toBe(2);
    expect((await cli('destination:enable', 'acme', 'a'.repeat(513))).code).toBe(2);
    const help = await cli('destination:disable', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('destination:disable <project> <destination-id>');
  });
});

describe('delete:destination', () => {
  it('deletes the destination and its runs with the same audit row as the route', async () => {
    const destination = await createDestinationVia(app, acme.projectId, {
      name: 'cli delete',
      baseUrl: `${target.origin}/hook`,
      headers: { 'X-Key': 'cli-secret-value-1' },
    });
    const eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
    expect((await replay(app, acme.projectId, { eventId, destinationId: destination.id, path: '/' })).statusCode).toBe(200);

    const result = await cli('delete:destination', 'acme', destination.id);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('1 replay run');
    expect(result.out).not.toContain('127.0.0.1');
    expect(await disabled(destination.id)).toBeUndefined();
    const runs = await db.pool.query('SELECT 1 FROM replay_runs WHERE destination_id = $1', [destination.id]);
    expect(runs.rowCount).toBe(0);
    const row = (await listAudit(db.pool, acme.projectId)).find((r) => r.action === 'replay_destination.deleted');
    expect(row?.details).toEqual({ destinationId: destination.id, name: 'cli delete', runsDeleted: 1 });
    expect(JSON.stringify(row)).not.toMatch(/127\.0\.0\.1|cli-secret/);

    expect((await cli('delete:destination', 'acme', destination.id)).code).toBe(1);
  });

  it('exits 1 for an unknown project or destination and 2 on usage errors', async () => {
    const destination = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin });
    expect((await cli('delete:destination', 'missing-project', destination.id)).code).toBe(1);
    expect((await cli('delete:destination', 'other', destination.id)).code).toBe(1);
    expect((await cli('delete:destination', 'acme', 'nope')).code).toBe(1);
    expect((await cli('delete:destination', 'acme')).code).toBe(2);
    expect((await cli('delete:destination', 'acme', destination.id, 'more')).code).toBe(2);
    expect((await cli('delete:destination', 'acme', 'a\u0000b')).code).toBe(2);
    expect(await disabled(destination.id)).toBe(false);
  });

  it('is listed in the overview', async () => {
    const overview = await cli('--help');
    for (const name of ['destination:disable', 'destination:enable', 'delete:destination']) expect(overview.out).toContain(name);
  });
});
