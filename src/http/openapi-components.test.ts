// Hoisting the answer schemas' $defs into components/schemas (openapi-components.ts).
import { describe, expect, it } from 'vitest';
import { hoistSchemaDefinitions } from './openapi-components.ts';

const alias = { type: 'object', properties: { type: { type: 'string' } } };

function routeSchema(defs: Record<string, unknown>, ref = '#/$defs/Alias') {
  return { type: 'object', properties: { data: { type: 'array', items: { $ref: ref } } }, $defs: defs };
}

function documentWith(...schemas: object[]) {
  return {
    openapi: '3.1.0',
    components: { schemas: { ErrorBody: { type: 'object' } } },
    paths: Object.fromEntries(schemas.map((schema, i) => [`/r${i}`, { get: { responses: { 200: { content: { 'application/json': { schema } } } } } }])),
  };
}

describe('hoistSchemaDefinitions', () => {
  it('moves every $defs entry to components/schemas once and points the references there', () => {
    const document = hoistSchemaDefinitions(documentWith(routeSchema({ Alias: alias }), routeSchema({ Alias: alias })));
    expect(Object.keys(document.components.schemas)).toEqual(['Alias', 'ErrorBody']);
    expect(document.components.schemas).toMatchObject({ Alias: alias });
    const text = JSON.stringify(document.paths);
    expect(text).not.toContain('$defs');
    expect(text.match(/#\/components\/schemas\/Alias/g)).toHaveLength(2);
  });

  it('refuses two different shapes under one id', () => {
    const other = { type: 'object', properties: { value: { type: 'string' } } };
    expect(() => hoistSchemaDefinitions(documentWith(routeSchema({ Alias: alias }), routeSchema({ Alias: other })))).toThrow(
      'Two different answer schemas share the component id Alias.',
    );
  });

  it('refuses a reference to a definition that is not there', () => {
    expect(() => hoistSchemaDefinitions(documentWith(routeSchema({}, '#/$defs/Missing'))))
      .toThrow('The document refers to #/$defs/Missing, which no answer schema defines.');
  });
});
