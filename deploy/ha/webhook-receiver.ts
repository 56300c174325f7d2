// A webhook receiver on loopback for the deployment scenarios: it records every delivery by the
// id a receiver deduplicates on (`x-jtrace-delivery`), and holds the first attempt of each id for
// a while before answering 200, so that a scenario can kill the sender while a delivery is in
// flight.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  id: string;
  /** deliveryId of the body: the same as the header. */
  bodyId: string | null;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** How many times each id arrived. */
  countsById(): Map<string, number>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { holdFirstMs: number }): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['x-jtrace-delivery'] ?? '');
      let bodyId: string | null = null;
      try {
        bodyId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { deliveryId?: string }).deliveryId ?? null;
      } catch {
        bodyId = null;
      }
      const first = !deliveries.some((d) => d.id === id);
      deliveries.push({ id, bodyId, receivedAt: Date.now() });
      setTimeout(() => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), first ? options.holdFirstMs : 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    countsById() {
      const counts = new Map<string, number>();
      for (const d of deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
