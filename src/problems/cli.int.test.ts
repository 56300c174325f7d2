import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { keyring } from '../query/test-fixtures.ts';

let db: TestDatabase;
const cli = (...argv: string[]) => runTestCli(argv, { pool: db.pool, keyring });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db.drop());

interface Listed { id: string; kind: string; path: string | null; status: string; inTransit: boolean; journeys: number; step: { name: string } | null; from: { name: string } | null }

describe('problems in the demo and the CLI', () => {
  it('the demo marks the reformatting of customer.phone expected, beside the loss inside normalize-contact and the loss in transit', async () => {
    const demo = await cli('demo');
    expect(demo.err).toEqual([]);
    expect(demo.code).toBe(0);
    expect(demo.out.some((line) => /^problems \(\d+; jtrace problems demo --status all\):$/.test(line))).toBe(true);
    const listed = await cli('problems', 'demo', '--status', 'all', '--path', 'customer.phone', '--json');
    expect(listed.code).toBe(0);
    const problems = JSON.parse(listed.out[0]!) as Listed[];
    const find = (kind: string, inTransit: boolean, step?: string) => problems.filter((p) => p.kind === kind && p.inTransit === inTransit && (step === undefined || p.step?.name === step));
    expect(find('changed', false, 'normalize-contact').map((p) => p.status)).toEqual(['expected']);
    expect(find('lost', false, 'normalize-contact').map((p) => p.status)).toEqual(['open']);
    expect(find('lost', true).length).toBeGreaterThan(0);
    expect(find('lost', true).every((p) => p.status === 'open' && p.from !== null)).toBe(true);
    // The default list leaves the expected reformatting out.
    const open = JSON.parse((await cli('problems', 'demo', '--path', 'customer.phone', '--json')).out[0]!) as Listed[];
    expect(open.some((p) => p.kind === 'changed')).toBe(false);
    expect(open.length).toBe(problems.length - 1);
  });

  it('problem:set-status resolves and reopens, refusing what is not a status change', async () => {
    const [first] = JSON.parse((await cli('problem:list', 'demo', '--kind', 'lost', '--json')).out[0]!) as Listed[];
    const resolved = await cli('problem:set-status', 'demo', first!.id, 'resolved', '--next-release');
    expect(resolved.out).toEqual([`${first!.id}: resolved`]);
    const text = await cli('problem:list', 'demo', '--status', 'resolved');
    expect(text.out).toHaveLength(1);
    expect(text.out[0]).toMatch(new RegExp(`^resolved +\\d+ journeys .*${first!.id}$`));
    expect((await cli('problem:set-status', 'demo', first!.id, 'closed')).code).not.toBe(0);
    expect((await cli('problem:set-status', 'demo', first!.id, 'open', '--until', '2099-01-01T00:00:00Z')).code).not.toBe(0);
    expect((await cli('problem:set-status', 'demo', '00000000-0000-3000-8000-000000000000', 'open')).code).not.toBe(0);
    expect((await cli('problem:list', 'demo', '--kind', 'nope')).code).not.toBe(0);
    expect((await cli('problem:set-status', 'demo', first!.id, 'open')).out).toEqual([`${first!.id}: open`]);
    const audit = await db.pool.query(`SELECT actor_kind, details->>'status' AS status FROM audit_log WHERE action = 'problem.status_changed' ORDER BY id`);
    expect(audit.rows.map((r) => `${r.actor_kind} ${r.status}`)).toEqual(['cli expected', 'cli resolved', 'cli open']);
  });
});
