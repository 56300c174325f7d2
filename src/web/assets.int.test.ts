// Asset paths sent as they are (no client-side normalisation, as curl --path-as-is does): a path
// that cannot name an asset is 404 `not_found`, never a 5xx.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { webApp } from './test-kit.ts';

let db: TestDatabase;
let webRoot: string;
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  db = await createTestDatabase();
  webRoot = mkdtempSync(path.join(tmpdir(), 'jtrace-assets-'));
  mkdirSync(path.join(webRoot, 'assets', 'nested'), { recursive: true });
  writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><html lang="en"><head><title>jtrace</title></head><body></body></html>');
  writeFileSync(path.join(webRoot, 'assets', 'index-abc123.js'), 'console.log("jtrace");\n');
  writeFileSync(path.join(webRoot, 'secret.txt'), 'outside the assets folder\n');
  app = await webApp(db, { webRoot });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app.close();
  await db.drop();
  rmSync(webRoot, { recursive: true, force: true });
});

/** GET with the path exactly as given. */
function rawGet(requestPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: requestPath, method: 'GET', agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('asset paths that cannot name an asset', () => {
  it.each([
    '/ui/assets/..',
    '/ui/assets/%2e%2e',
    '/ui/assets/./index-abc123.js',
    '/ui/assets/x%00',
    '/ui/assets/%00',
    '/ui/assets/a/%2e%2e/%2e%2e/secret.txt',
    '/ui/assets/..%2f..%2fsecret.txt',
    '/ui/assets/nested',
    '/ui/assets/nested/',
  ])('%s answers 404 not_found', async (requestPath) => {
    const response = await rawGet(requestPath);
    expect(response.status, response.body).toBe(404);
    expect(JSON.parse(response.body).error.code).toBe('not_found');
    expect(response.body).not.toContain('outside the assets folder');
  });

  it('a real asset is still served', async () => {
    const response = await rawGet('/ui/assets/index-abc123.js');
    expect(response.status).toBe(200);
    expect(response.body).toBe('console.log("jtrace");\n');
  });

  it('property: any path under /ui/assets/ built from hostile pieces answers below 500 and never leaks a file outside it', async () => {
    const piece = fc.oneof(
      fc.constantFrom('..', '.', '%2e', '%2E%2e', '%00', '%2f', '%5c', '%', '%zz', '%c0%ae', '~', 'index-abc123.js', 'nested', 'secret.txt', ';', '%20', '//'),
      fc.stringMatching(/^[A-Za-z0-9._~-]{0,6}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.constantFrom('/', ''), async (pieces, joiner) => {
        const response = await rawGet(`/ui/assets/${pieces.join(joiner)}`);
        expect(response.status, pieces.join(joiner)).toBeLessThan(500);
        expect(response.body).not.toContain('outside the assets folder');
      }),
      { numRuns: 300 },
    );
  });
});
