// Writes docs/openapi.json, the copy of the document served at GET /v1/openapi.json:
// `npx tsx scripts/openapi.ts`. src/http/openapi.test.ts fails when the copy is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { createKeyring } from '../src/crypto/keyring.ts';
import { createPool } from '../src/db/pool.ts';
import { createMetrics } from '../src/metrics/metrics.ts';

export const OPENAPI_COPY = new URL('../docs/openapi.json', import.meta.url);

/** The whole app with a pool that never connects: building it registers routes only. */
export async function buildDocumentApp(): Promise<FastifyInstance> {
  const pool = createPool({ connectionString: 'postgres://openapi@127.0.0.1:1/openapi', max: 1, statementTimeoutMs: 0 });
  const app = await buildApp({
    // Every optional route is on, so the document lists it (OTLP_ENABLED).
    config: { ...loadConfig({}), replayAllowedHosts: [], otlpEnabled: true },
    pool,
    keyring: createKeyring({ current: 'openapi-document-key-0123456789abcdefghijkl' }),
    adminToken: 'openapi-document-admin-token-0123456789abcdef',
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(pool),
    build: { version: '0.0.0', source: 'package' },
  });
  app.addHook('onClose', async () => pool.end());
  await app.ready();
  return app;
}

/** The document as JSON text, two-space indented. */
export async function generateOpenApiText(): Promise<string> {
  const app = await buildDocumentApp();
  try {
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_COPY, await generateOpenApiText());
  console.log(`wrote ${fileURLToPath(OPENAPI_COPY)}`);
}
