// Part of bench/ingest-single.ts: how a shared transaction of single events should survive one
// failing member. Either the group is one storeEvents call and, when it fails, each member is
// stored again in a transaction of its own (what src/ingest/coalesce.ts does), or every member
// is stored by its own storeEvents call under a savepoint, so a failure rolls back that member
// alone. Both are measured on the same groups, interleaved, with and without a failing member.

import { randomUUID } from 'node:crypto';
import type { Keyring } from '../src/crypto/keyring.ts';
import { withTransaction, type Pool } from '../src/db/pool.ts';
import { prepareEvent, type PrepareContext } from '../src/ingest/prepare.ts';
import { storeEvents, type StoreInput, type StoreScope } from '../src/ingest/store.ts';
import type { EnvironmentRow } from '../src/projects/environments-sql.ts';
import { makeEvent } from './ingest-load.ts';

export interface RecoveryFigures {
  groupSize: number;
  repetitions: number;
  /** Median ms per group: [shared transaction, savepoint per member]. */
  healthy: [number, number];
  /** Median ms per group with one failing member: [shared transaction then one by one, savepoints]. */
  failing: [number, number];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export async function measureRecovery(pool: Pool, keyring: Keyring, projectId: string, environment: EnvironmentRow, groupSize = 32, repetitions = 9): Promise<RecoveryFigures> {
  // A real constraint violation for chosen ids: the failing member, as the tests make one.
  await pool.query("ALTER TABLE events ADD CONSTRAINT bench_poisoned_event CHECK (id NOT LIKE 'evt_poison%')");
  const ctx: PrepareContext = {
    keyring, environmentName: environment.name, allowFullPayloadCapture: false, maxEventPayloadBytes: 262_144,
    capture: { captureMode: environment.captureMode, redactionPaths: environment.redactionPaths, captureAllowlist: environment.captureAllowlist },
  };
  const scope: StoreScope = { projectId, environmentId: environment.id };
  const group = (failing: boolean): StoreInput[] => Array.from({ length: groupSize }, (_, i) => {
    const envelope = makeEvent(`rec${randomUUID().slice(0, 8)}`, i, i % 4);
    if (failing && i === groupSize / 2) envelope.event.id = `evt_poison_${randomUUID()}`;
    const result = prepareEvent(envelope, ctx);
    if (!result.ok) throw new Error(`benchmark event refused: ${result.refusal.code}`);
    return { prepared: result.prepared, receivedAtUs: Date.now() * 1000 };
  });

  const shared = async (inputs: StoreInput[]) => {
    try {
      await withTransaction(pool, (client) => storeEvents(client, keyring, scope, inputs));
    } catch {
      await Promise.all(inputs.map((input) => withTransaction(pool, (client) => storeEvents(client, keyring, scope, [input])).catch(() => null)));
    }
  };
  const savepoints = (inputs: StoreInput[]) =>
    withTransaction(pool, async (client) => {
      for (const input of inputs) {
        await client.query('SAVEPOINT member');
        try {
          await storeEvents(client, keyring, scope, [input]);
          await client.query('RELEASE SAVEPOINT member');
        } catch {
          await client.query('ROLLBACK TO SAVEPOINT member');
        }
      }
    });

  const times = { healthy: [[], []] as number[][], failing: [[], []] as number[][] };
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  for (let r = 0; r < repetitions + 1; r++) {
    for (const failing of [false, true]) {
      const kind = failing ? 'failing' : 'healthy';
      const a = await timed(() => shared(group(failing)));
      const b = await timed(() => savepoints(group(failing)));
      if (r === 0) continue; // warm-up
      times[kind][0]!.push(a);
      times[kind][1]!.push(b);
    }
  }
  await pool.query('ALTER TABLE events DROP CONSTRAINT bench_poisoned_event');
  return {
    groupSize, repetitions,
    healthy: [median(times.healthy[0]!), median(times.healthy[1]!)],
    failing: [median(times.failing[0]!), median(times.failing[1]!)],
  };
}
