// Service one, `order-api`: takes an order over HTTP, records its steps, and hands it to the
// fulfilment service over HTTP with the journey in the request headers.
import { createServer, type Server } from 'node:http';
import { type Recorder, injectHttpHeaders } from '@jtrace/node';

export interface Order {
  orderId: string;
  customer: { name: string; email: string; phone: string; crmId: string };
  items: Array<{ sku: string; quantity: number }>;
}

export interface FulfilmentRequest {
  orderId: string;
  customer: { name: string; email: string; crmId: string; phone?: string };
  items: Array<{ sku: string; quantity: number }>;
}

function readJson(request: import('node:http').IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    request.on('error', reject);
  });
}

/** The mapping under test: it forgets the phone number, which the journey's diff shows. */
export function toFulfilmentRequest(order: Order): FulfilmentRequest {
  const { name, email, crmId } = order.customer;
  return {
    orderId: order.orderId,
    customer: { name, email, crmId },
    items: order.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
  };
}

export function createOrderApi(recorder: Recorder, fulfilmentUrl: string): Server {
  return createServer(async (request, response) => {
    try {
      const body = await readJson(request);
      const order = body as Order;
      const journey = recorder.startJourney({ entity: { type: 'order', id: order.orderId }, label: `Order ${order.orderId}` });
      journey.receive('receive-order', order, (input) => input);
      journey.identify({ crmId: order.customer.crmId, email: order.customer.email }, { displayable: ['crmId'] });
      journey.validate('validate-order', order, (input) => {
        if (input.items.length === 0) throw new Error('an order needs items');
        return { valid: true };
      });
      const request2 = journey.transform('normalize-order', order, toFulfilmentRequest);
      const answer = await journey.deliver('send-to-fulfilment', request2, (input) =>
        fetch(`${fulfilmentUrl}/fulfilments`, {
          method: 'POST',
          headers: injectHttpHeaders(new Headers({ 'content-type': 'application/json' }), journey),
          body: JSON.stringify(input),
        }).then((reply) => reply.status),
      );
      response.writeHead(answer === 202 ? 202 : 502).end();
    } catch {
      response.writeHead(400).end();
    }
  });
}
