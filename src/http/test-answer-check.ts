// Checks real answers against the answer schemas the routes declare (not a test itself): each
// call names the route pattern it means, the answer must parse with the schema declared for its
// status, and the routes whose 2xx answers were never checked can be listed.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { z } from 'zod';
import { registeredRoutes, type RegisteredRoute } from './route-contract.ts';

export interface AnswerCall {
  /** The URL to request; the pattern when omitted. */
  url?: string;
  headers?: Record<string, string>;
  payload?: InjectOptions['payload'];
  /** The status the scenario expects (a check on the scenario, not on the schema). */
  status: number;
}

/** `/v1/journeys/:journeyId` as a regular expression for a request path. */
function patternRegex(pattern: string): RegExp {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

export class AnswerCheck {
  private readonly routes: readonly RegisteredRoute[];
  private readonly checked = new Set<string>();

  constructor(private readonly app: FastifyInstance) {
    this.routes = registeredRoutes(app).filter((route) => route.method !== 'HEAD');
  }

  /** Sends the request and checks its answer against the schema declared for its status. */
  async call(method: string, pattern: string, call: AnswerCall): Promise<LightMyRequestResponse> {
    const route = this.routes.find((r) => r.method === method && r.url === pattern);
    expect(route?.contract, `${method} ${pattern} is a route with a contract`).toBeDefined();
    const url = call.url ?? pattern;
    expect(url.split('?')[0], `${url} is a path of ${pattern}`).toMatch(patternRegex(pattern));
    const response = await this.app.inject({ method: method as InjectOptions['method'], url, headers: call.headers, payload: call.payload });
    expect(response.statusCode, `${method} ${url}: ${response.body.slice(0, 500)}`).toBe(call.status);
    const schema = route!.contract!.answers[response.statusCode]?.schema;
    expect(schema, `${method} ${pattern} declares a schema for ${response.statusCode}`).toBeDefined();
    const parsed = schema!.safeParse(response.json());
    if (!parsed.success) {
      expect.fail(`${method} ${url} answered ${response.statusCode} outside its schema:\n${z.prettifyError(parsed.error)}\n${response.body.slice(0, 2000)}`);
    }
    this.checked.add(`${method} ${pattern} ${response.statusCode}`);
    return response;
  }

  /** Every 2xx answer with a body a route declares, as `METHOD pattern status`. */
  declaredBodies(): string[] {
    return this.routes.flatMap((route) =>
      Object.entries(route.contract?.answers ?? {})
        .filter(([status, answer]) => Number(status) >= 200 && Number(status) < 300 && answer.schema !== undefined)
        .map(([status]) => `${route.method} ${route.url} ${status}`),
    );
  }

  /** What was checked, sorted. */
  checkedAnswers(): string[] {
    return [...this.checked].sort();
  }
}
