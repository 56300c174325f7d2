import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { signIn, webApp } from './test-kit.ts';

const INDEX = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8"><title>jtrace</title>
<script type="module" crossorigin src="/ui/assets/index-abc123.js"></script>
<link rel="modulepreload" href="/ui/assets/vendor-def456.js">
<link rel="stylesheet" crossorigin href="/ui/assets/index-abc123.css">
<style>body{margin:0}</style>
</head><body><div id="root"></div></body></html>
`;

let db: TestDatabase;
let webRoot: string;
let app: FastifyInstance;
let bare: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  webRoot = mkdtempSync(path.join(tmpdir(), 'jtrace-web-'));
  mkdirSync(path.join(webRoot, 'assets'));
  writeFileSync(path.join(webRoot, 'index.html'), INDEX);
  writeFileSync(path.join(webRoot, 'assets', 'index-abc123.js'), 'console.log("jtrace");\n');
  writeFileSync(path.join(webRoot, 'assets', 'index-abc123.css'), 'body { color: black; }\n');
  app = await webApp(db, { webRoot });
  bare = await webApp(db, { webRoot: path.join(webRoot, 'missing') });
});

afterAll(async () => {
  await Promise.all([app.close(), bare.close()]);
  await db.drop();
  rmSync(webRoot, { recursive: true, force: true });
});

function cspNonces(csp: string): { script: string; style: string } {
  const script = /script-src 'self' 'nonce-([0-9a-f]+)'/.exec(csp)?.[1];
  const style = /style-src 'self' 'nonce-([0-9a-f]+)'/.exec(csp)?.[1];
  expect(script).toBeDefined();
  expect(style).toBeDefined();
  return { script: script!, style: style! };
}

describe('pages', () => {
  it('redirects / and /ui to /ui/', async () => {
    for (const url of ['/', '/ui']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/ui/');
    }
  });

  it('serves the index with a fresh nonce on every script and style, and the security headers', async () => {
    const seen = new Set<string>();
    for (const url of ['/ui/', '/ui/journeys', '/ui/journeys/j-1?event=e-2', '/ui/a/b/c']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(response.headers['content-security-policy']);
      const nonces = cspNonces(csp);
      expect(csp).toBe(
        `default-src 'self';script-src 'self' 'nonce-${nonces.script}';style-src 'self' 'nonce-${nonces.style}';` +
          `img-src 'self' data:;connect-src 'self';frame-ancestors 'none';base-uri 'none';form-action 'self';object-src 'none'`,
      );
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.body).toContain(`<script nonce="${nonces.script}" type="module" crossorigin src="/ui/assets/index-abc123.js">`);
      expect(response.body).toContain(`<link nonce="${nonces.style}" rel="stylesheet" crossorigin href="/ui/assets/index-abc123.css">`);
      expect(response.body).toContain(`<style nonce="${nonces.style}">`);
      expect(response.body).toContain('<link rel="modulepreload"');
      seen.add(nonces.script);
    }
    expect(seen.size).toBe(4);
  });

  it('serves built assets with long caching, and 404 for unknown assets and API routes', async () => {
    const js = await app.inject({ method: 'GET', url: '/ui/assets/index-abc123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    for (const url of ['/ui/assets/nope.js', '/ui/assets/..%2Findex.html', '/ui/api/nope', '/ui/api/v1/nothing']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });

  it('answers 503 with the build command when the interface is not built', async () => {
    const response = await bare.inject({ method: 'GET', url: '/ui/journeys' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('npm run build:web');
    expect((await bare.inject({ method: 'GET', url: '/ui/assets/index-abc123.js' })).statusCode).toBe(404);
  });

  it('never shows the admin token in a page, an asset or a header, signed in or not', async () => {
    const cookie = await signIn(app);
    const urls = ['/ui/', '/ui/journeys', ...readdirSync(path.join(webRoot, 'assets')).map((name) => `/ui/assets/${name}`)];
    for (const url of urls) {
      for (const headers of [{}, { cookie }]) {
        const response = await app.inject({ method: 'GET', url, headers });
        expect(response.body).not.toContain(TEST_ADMIN_TOKEN);
        expect(JSON.stringify(response.headers)).not.toContain(TEST_ADMIN_TOKEN);
      }
    }
    const session = await app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } });
    expect(session.body).not.toContain(TEST_ADMIN_TOKEN);
    expect(readFileSync(path.join(webRoot, 'index.html'), 'utf8')).not.toContain(TEST_ADMIN_TOKEN);
  });
});
