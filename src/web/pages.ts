import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors } from '../http/errors.ts';
import { defineRoute, type RouteContract } from '../http/route-contract.ts';

/** Paths under /ui/ that are never a page: an unknown one there is a plain 404. */
const NOT_PAGES = ['/ui/api/', '/ui/assets/'];

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>jtrace: interface not built</title></head>
<body><h1>The web interface is not built</h1>
<p>Run <code>npm run build:web</code> in the jtrace folder, then reload this page.</p></body></html>
`;

/**
 * Adds the response's CSP nonces to every script, style sheet link and style element, so that
 * the page runs under a policy without 'unsafe-inline'.
 */
export function addNonces(html: string, nonces: { script: string; style: string }): string {
  return html
    .replace(/<script\b/gi, `<script nonce="${nonces.script}"`)
    .replace(/<style\b/gi, `<style nonce="${nonces.style}"`)
    .replace(/<link\b(?=[^>]*\brel\s*=\s*["']?stylesheet\b)/gi, `<link nonce="${nonces.style}"`);
}

async function sendIndex(reply: FastifyReply, webRoot: string | null): Promise<FastifyReply> {
  let html: string;
  try {
    // Read on each request: a rebuilt interface is served without a restart, and pages are few.
    if (webRoot === null) throw new Error('no web root');
    html = await readFile(path.join(webRoot, 'index.html'), 'utf8');
  } catch {
    return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
  }
  const nonces = reply.cspNonce as { script: string; style: string };
  return reply.type('text/html; charset=utf-8').send(addNonces(html, nonces));
}

/** A page route: no credential (the front end signs in), and any query (the URL keeps its filters). */
export function pageContract(summary: string, answers: RouteContract['answers']): RouteContract {
  // 'ignored': a page's query string belongs to the front end's router, not to the server.
  return { summary, tag: 'web', credential: null, query: 'ignored', answers, errors: ['not_found', 'internal_error'] };
}

const INDEX_ANSWERS = {
  200: { description: 'The interface (web/dist/index.html) with this response\'s CSP nonces.' },
  503: { description: 'The interface is not built: run npm run build:web.' },
};

/** `/ui` and every page path under it answer the interface's index (client-side routing). */
export function registerPages(ui: FastifyInstance, webRoot: string | null): void {
  defineRoute(ui, {
    method: 'GET',
    url: '/',
    options: { prefixTrailingSlash: 'no-slash' },
    contract: pageContract('Redirect to /ui/', { 302: { description: 'Location: /ui/' } }),
    handler: async (_request, reply) => reply.redirect('/ui/', 302),
  });
  defineRoute(ui, {
    method: 'GET',
    url: '/',
    options: { prefixTrailingSlash: 'slash' },
    contract: pageContract('The web interface', INDEX_ANSWERS),
    handler: async (_request, reply) => sendIndex(reply, webRoot),
  });
  defineRoute(ui, {
    method: 'GET',
    url: '/*',
    contract: pageContract('A page of the web interface (client-side routing)', INDEX_ANSWERS),
    handler: async (request, reply) => {
      const urlPath = (request.raw.url ?? '').split('?')[0]!;
      if (NOT_PAGES.some((prefix) => urlPath.startsWith(prefix))) {
        throw errors.notFound(`Route ${request.method} ${urlPath.slice(0, 300)} not found.`);
      }
      return sendIndex(reply, webRoot);
    },
  });
}
