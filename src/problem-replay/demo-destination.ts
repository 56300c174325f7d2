// The demo's "fixed" contact-normalizer (docs/problems.md, "Verifying a fix by replay"): a small
// HTTP server on loopback that normalizes a contact the way the demo's buggy step should have,
// keeping the phone, and the replay destination that points at it, so that a newcomer can replay
// the demo's phone loss to it and see every journey now keep the field.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { createDestination, listDestinations } from '../replay/destinations.ts';

export const DEMO_DESTINATION_NAME = 'fixed contact-normalizer (demo)';
/** Bytes of a request body the fixed service reads: a contact is far smaller. */
const MAX_BODY_BYTES = 65_536;

interface Contact {
  name?: unknown;
  email?: unknown;
  phone?: unknown;
}

/** The fix: "01632 960123" becomes "+441632960123" instead of being dropped. */
export function normalizeContact(input: unknown): unknown {
  const body = (typeof input === 'object' && input !== null ? input : {}) as { event?: unknown; customer?: Contact };
  const customer = body.customer ?? {};
  const phone = typeof customer.phone === 'string' ? `+44${customer.phone.replace(/\s+/g, '').replace(/^0/, '')}` : customer.phone;
  return {
    event: body.event,
    customer: { name: customer.name, email: typeof customer.email === 'string' ? customer.email.toLowerCase() : customer.email, phone, country: 'GB' },
  };
}

/** Starts the fixed service on 127.0.0.1:port; answers every POST with the normalized contact. */
export async function startFixedService(port: number): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      let input: unknown;
      try {
        input = size > MAX_BODY_BYTES ? null : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        input = null;
      }
      const status = input === null ? 400 : 200;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(status === 200 ? normalizeContact(input) : { error: 'a JSON contact is expected' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The demo project's destination for the fixed service, created once (a development environment). */
export async function ensureDemoDestination(pool: Pool, keyring: Keyring, projectId: string, baseUrl: string): Promise<{ id: string; created: boolean }> {
  const existing = (await listDestinations(pool, projectId)).find((d) => d.name === DEMO_DESTINATION_NAME && d.baseUrl === baseUrl);
  if (existing) return { id: existing.id, created: false };
  const created = await createDestination(pool, keyring, projectId, { name: DEMO_DESTINATION_NAME, baseUrl, environmentType: 'development', headers: {} });
  return { id: created.id, created: true };
}

/** The id the demo's phone loss at normalize-contact has (or will have once analysed): ids derive from the problem's key. */
export async function demoProblemId(db: Queryable, projectId: string, environment: string): Promise<string | null> {
  const result = await db.query<{ id: string }>(
    `SELECT problem_id_of($1, e.id, 'lost', 'customer.phone', 'contact-normalizer', 'normalize-contact', NULL, NULL, false) AS id
       FROM environments e WHERE e.project_id = $1 AND e.name = $2`,
    [projectId, environment],
  );
  return result.rows[0]?.id ?? null;
}
