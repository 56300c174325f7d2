// The route contracts and the OpenAPI document generated from them. The app is built without a
// database: registering routes opens no connection.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { OPENAPI_COPY, buildDocumentApp, generateOpenApiText } from '../../scripts/openapi.ts';
import { registeredRoutes, trackRoutes } from './route-contract.ts';

const text = await generateOpenApiText();
const document = JSON.parse(text) as { paths: Record<string, Record<string, unknown>> };

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((document as unknown as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('is served at GET /v1/openapi.json without a credential, and refuses unknown query parameters', async () => {
    const app = await buildDocumentApp();
    try {
      const served = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      expect(served.statusCode).toBe(200);
      expect(served.json()).toEqual(document);
      const refused = await app.inject({ method: 'GET', url: '/v1/openapi.json?format=yaml' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.code).toBe('invalid_query');
    } finally {
      await app.close();
    }
  });

  it('has its copy in docs/ current (regenerate with npx tsx scripts/openapi.ts)', () => {
    expect(readFileSync(OPENAPI_COPY, 'utf8')).toBe(text);
  });
});

describe('route contracts', () => {
  it('every registered route declares one and is in the document', async () => {
    const app = await buildDocumentApp();
    try {
      const routes = registeredRoutes(app).filter((route) => route.method !== 'HEAD');
      expect(routes.length).toBeGreaterThan(15);
      expect(routes.filter((route) => route.contract === undefined).map((r) => `${r.method} ${r.url}`)).toEqual([]);
      const inDocument = (route: { method: string; url: string }) =>
        document.paths[route.url.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\/\*$/, '/{*}')]?.[route.method.toLowerCase()] !== undefined;
      expect(routes.filter((route) => !inDocument(route)).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('the walk finds a route without a declaration, under a prefix too', async () => {
    const app = Fastify();
    trackRoutes(app);
    app.get('/plain', async () => 'x');
    await app.register(async (child) => {
      child.get('/inner', async () => 'y');
    }, { prefix: '/ui/api' });
    await app.ready();
    const missing = registeredRoutes(app).filter((r) => r.contract === undefined && r.method !== 'HEAD').map((r) => r.url);
    expect(missing).toEqual(['/plain', '/ui/api/inner']);
    await app.close();
  });
});

describe('answer schemas in the document', () => {
  const json = JSON.stringify(document);
  const components = (document as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;

  it('name the shared shapes as components and every reference resolves', () => {
    for (const id of ['JourneySummary', 'Journey', 'JourneyEventRow', 'StoredEvent', 'Alias', 'Project', 'ReplayDestination', 'ReplayRun', 'ErasureResult', 'BatchResult', 'FollowedField', 'JourneyComparison', 'Timestamp']) {
      expect(components[id], id).toBeDefined();
    }
    expect(json).not.toContain('$defs');
    const refs = new Set([...json.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!));
    expect([...refs].filter((id) => components[id] === undefined)).toEqual([]);
  });

  it('describe the items of a journey page field by field', () => {
    const items = components.JourneySummary as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(items.properties)).toEqual([
      'journeyId', 'environment', 'entity', 'status', 'label', 'lastStep', 'failedStep', 'eventCount', 'startedAt', 'lastEventAt', 'displayableAliases', 'findings',
    ]);
    expect(items.additionalProperties).toBe(false);
  });
});
