import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createRecorder, type Recorder } from '@jtrace/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, getJson, startLiveServer } from '../../packages/node/test/server.ts';
import { createFulfilmentApi, processNextShipment } from './fulfilment.ts';
import { createOrderApi } from './order-api.ts';
import { InMemoryQueue } from './queue.ts';

/** The two-service example against the real jtrace server and database. */
let jtrace: LiveServer;
let apiKey: string;
const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recorderFor(serviceName: string): Recorder {
  return createRecorder({ endpoint: jtrace.url, apiKey, serviceName, environment: 'production', openTelemetry: null, onDiagnostic: () => {} });
}

beforeAll(async () => {
  jtrace = await startLiveServer();
  apiKey = await jtrace.project('production');
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await jtrace?.close();
});

describe('example pipeline: order-api → HTTP → fulfilment → queue → worker', () => {
  it('is traced end to end: found by entity and alias, every step, the lost phone, completed', async () => {
    const orders = recorderFor('order-api');
    const fulfilment = recorderFor('fulfilment');
    const queue = new InMemoryQueue();
    const fulfilmentUrl = await listen(createFulfilmentApi(fulfilment, queue));
    const orderApiUrl = await listen(createOrderApi(orders, fulfilmentUrl));
    let bookings = 0;
    const carrier = async () => {
      bookings += 1;
      if (bookings === 1) throw new Error('carrier timed out');
      return { trackingId: 'TRK-1' };
    };
    const worker = processNextShipment(fulfilment, queue, carrier);

    const orderId = `ord_${Date.now()}`;
    const placed = await fetch(`${orderApiUrl}/orders`, {
      method: 'POST',
      body: JSON.stringify({
        orderId,
        customer: { name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0000', crmId: 'CRM-4411' },
        items: [{ sku: 'SKU-1', quantity: 2 }],
      }),
    });
    expect(placed.status).toBe(202);
    expect(await worker).toBe(true);
    expect(await orders.shutdown({ timeoutMs: 5_000 })).toBe(true);
    expect(await fulfilment.shutdown({ timeoutMs: 5_000 })).toBe(true);
    for (const counters of [orders.counters(), fulfilment.counters()]) {
      expect(counters.rejected + counters.dropped).toBe(0);
      expect(counters.sent).toBe(counters.recorded);
    }

    const byEntity = await getJson(`${jtrace.url}/v1/search?q=${orderId}`, apiKey);
    expect(byEntity.body.data.items).toHaveLength(1);
    const journeyId = byEntity.body.data.items[0].journeyId as string;
    const byAlias = await getJson(`${jtrace.url}/v1/search?q=ada@example.com`, apiKey);
    expect(byAlias.body.data.items.map((item: { journeyId: string }) => item.journeyId)).toEqual([journeyId]);

    const journey = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}`, apiKey)).body.data;
    expect(journey).toMatchObject({ status: 'completed', label: `Order ${orderId}`, services: ['fulfilment', 'order-api'], entity: { type: 'order', id: orderId } });
    expect(journey.completedAt).toEqual(expect.any(String));

    const events = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}/events?limit=100`, apiKey)).body.data.items as Array<Record<string, any>>;
    const steps = events.map((event) => `${event.service}:${event.operation}:${event.name}`);
    expect(new Set(steps)).toEqual(
      new Set([
        'order-api:received:receive-order',
        'order-api:identified:identify',
        'order-api:validated:validate-order',
        'order-api:transformed:normalize-order',
        'order-api:delivered:send-to-fulfilment',
        'fulfilment:received:accept-fulfilment',
        'fulfilment:published:queue-shipment',
        'fulfilment:consumed:take-shipment',
        'fulfilment:delivered:book-carrier',
        'fulfilment:retried:book-carrier',
        'fulfilment:completed:shipment-booked',
      ]),
    );
    const transform = events.find((event) => event.name === 'normalize-order');
    const detail = (await getJson(`${jtrace.url}/v1/events/${transform?.id}`, apiKey)).body.data;
    expect(detail.payloadDiff).toEqual({ changes: [{ path: 'customer.phone', kind: 'removed', before: '+44 20 7946 0000' }], truncated: false });
    const failedBooking = events.find((event) => event.operation === 'delivered' && event.name === 'book-carrier');
    expect((await getJson(`${jtrace.url}/v1/events/${failedBooking?.id}`, apiKey)).body.data.error).toMatchObject({ message: 'carrier timed out' });
  });
});
