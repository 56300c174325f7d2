// The real front-end build (web/dist, made by `npm test` before vitest runs) served by the real
// server: no admin token in any built file or served page, and nothing the page CSP would block.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../src/web/test-kit.ts';
import { buildTestApp, TEST_ADMIN_TOKEN } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

const WEB_ROOT = path.resolve(import.meta.dirname, '../web/dist');
const PAGES = ['/ui/', '/ui/sign-in', '/ui/projects/00000000-0000-4000-8000-000000000000/journeys?status=failed'];

function builtFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? builtFiles(file) : [file];
  });
}

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { webRoot: WEB_ROOT })).app;
});

afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('the built web interface', () => {
  it('holds no admin token in any built file', () => {
    const files = builtFiles(WEB_ROOT);
    expect(files.some((file) => file.endsWith('.js'))).toBe(true);
    // The admin token of whoever built it, if any, must not have been baked in either.
    const tokens = [TEST_ADMIN_TOKEN, process.env.ADMIN_TOKEN?.trim()].filter((t): t is string => !!t && t.length >= 16);
    for (const file of files) {
      const text = readFileSync(file, 'latin1');
      for (const token of tokens) expect(text.includes(token), path.relative(WEB_ROOT, file)).toBe(false);
      expect(/ADMIN_TOKEN\s*[:=]\s*["'`]/.test(text), path.relative(WEB_ROOT, file)).toBe(false);
    }
  });

  it('serves pages and assets without the admin token, signed in or not', async () => {
    const cookie = await signIn(app);
    const assets = builtFiles(path.join(WEB_ROOT, 'assets')).map((file) => `/ui/assets/${path.basename(file)}`);
    for (const url of [...PAGES, ...assets]) {
      for (const headers of [{}, { cookie }]) {
        const response = await app.inject({ method: 'GET', url, headers });
        expect(response.statusCode, url).toBe(200);
        expect(response.body.includes(TEST_ADMIN_TOKEN), url).toBe(false);
        expect(JSON.stringify(response.headers).includes(TEST_ADMIN_TOKEN), url).toBe(false);
      }
    }
  });

  it('has no inline script or style for the CSP to refuse: every script and style sheet is a file with a nonce', async () => {
    const page = await app.inject({ method: 'GET', url: '/ui/' });
    const html = page.body;
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) {
      expect(tag).toMatch(/ src="\/ui\/assets\/[^"]+\.js"/);
      expect(tag).toMatch(/ nonce="[0-9a-f]+"/);
    }
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/\son[a-z]+="/);
    for (const href of [...html.matchAll(/href="(\/ui\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
      expect((await app.inject({ method: 'GET', url: href })).statusCode, href).toBe(200);
    }
  });
});
