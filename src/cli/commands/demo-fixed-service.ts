// The demo's way to verify a fix by replay (docs/problems.md): a "fixed" contact-normalizer on
// loopback, registered as a replay destination of the demo project (a development environment).
// It listens while the demo command keeps running (an interactive terminal, until Ctrl-C).

import { DEMO_DESTINATION_NAME, demoProblemId, ensureDemoDestination, startFixedService } from '../../problem-replay/demo-destination.ts';
import { DEMO_ENVIRONMENT } from '../../web/demo-journeys.ts';
import type { CliContext, CliServices } from '../context.ts';

/** The fixed service's port: next to the server's own, so a re-run finds its destination unchanged. */
export function fixedServicePort(serverPort: number): number {
  return serverPort < 65_535 ? serverPort + 1 : serverPort - 1;
}

/** Registers the destination and says how to use it; the function returned serves until interrupted. */
export async function offerFixedService(ctx: CliContext, { pool, keyring, config }: CliServices, projectId: string): Promise<() => Promise<void>> {
  const port = fixedServicePort(config.port);
  const destination = await ensureDemoDestination(pool, keyring, projectId, `http://127.0.0.1:${port}`);
  const problemId = await demoProblemId(pool, projectId, DEMO_ENVIRONMENT);
  ctx.io.out(`replay destination "${DEMO_DESTINATION_NAME}" ${destination.id}: http://127.0.0.1:${port}, a development environment`);
  ctx.io.out(`Verify the fix: open the problem "lost customer.phone at normalize-contact" and replay it to that destination,`);
  ctx.io.out(`or run: jtrace problem:replay ${problemId ?? '<problemId>'} --destination ${destination.id} --wait`);
  const until = ctx.untilInterrupted;
  if (until === undefined) return async () => undefined;
  return () => serveUntil(ctx, port, until);
}

async function serveUntil(ctx: CliContext, port: number, until: () => Promise<void>): Promise<void> {
  let service;
  try {
    service = await startFixedService(port);
  } catch {
    ctx.io.err(`the fixed contact-normalizer could not listen on 127.0.0.1:${port} (in use?); replays to it will fail`);
    return;
  }
  ctx.io.out(`The fixed contact-normalizer listens on ${service.url}; leave this running (Ctrl-C stops it) and start the server in another terminal.`);
  try {
    await until();
  } finally {
    await service.close();
  }
}
