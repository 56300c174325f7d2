// The server's start-up check of the pooling mode between it and PostgreSQL
// (src/db/pooling-mode.ts): a pooler that shares server sessions stops the process before it
// listens, naming the mode and the reason.

import type { Logger } from 'pino';
import { detectPoolPoolingMode, poolingModeProblem, type PoolingMode } from '../db/pooling-mode.ts';
import { isDatabaseUnavailable, type Pool } from '../db/pool.ts';

/** How often the check is tried again when the database could not be reached at start. */
const RETRY_MS = 5_000;

export interface PoolingGuard {
  stop(): void;
}

/**
 * Throws when the pool's connections do not keep their session. A database that cannot be
 * reached yet does not stop the start (the server answers 503 until it can): the check is then
 * tried again in the background and `onIncompatible` is called if it finds a shared-session mode.
 */
export async function requireSessionPooling(
  pool: Pool,
  deps: { logger: Pick<Logger, 'warn'>; onIncompatible: (message: string) => void; detect?: (pool: Pool) => Promise<PoolingMode> },
): Promise<PoolingGuard> {
  const detect = deps.detect ?? detectPoolPoolingMode;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const attempt = async (): Promise<string | null | 'unreachable'> => {
    try {
      return poolingModeProblem(await detect(pool));
    } catch (error) {
      if (isDatabaseUnavailable(error)) return 'unreachable';
      throw error;
    }
  };
  const first = await attempt();
  if (first !== null && first !== 'unreachable') throw new Error(first);
  if (first === 'unreachable') {
    deps.logger.warn('the database could not be reached to check its pooling mode; checking again every 5 s');
    const retry = () => {
      timer = setTimeout(() => {
        void attempt().then(
          (result) => {
            if (stopped) return;
            if (result === 'unreachable') retry();
            else if (result !== null) deps.onIncompatible(result);
          },
          () => {
            if (!stopped) retry();
          },
        );
      }, RETRY_MS);
      timer.unref();
    };
    retry();
  }
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
