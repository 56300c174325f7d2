// The Node half of a mixed fleet: `order-service` takes an order over HTTP, records its steps
// with @jtrace/node, and calls the Python shipping worker with the journey in the request headers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type Recorder, injectHttpHeaders } from '@jtrace/node';

export interface Order {
  orderId: string;
  customer: { name: string; email: string; phone: string };
  items: Array<{ sku: string; quantity: number }>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function createOrderService(recorder: Recorder, workerUrl: string): Server {
  return createServer(async (request, response) => {
    try {
      const order = (await readJson(request)) as Order;
      const journey = recorder.startJourney({ entity: { type: 'order', id: order.orderId }, label: `Order ${order.orderId}` });
      journey.receive('receive-order', order, (input) => input);
      journey.validate('validate-order', order, (input) => {
        if (input.items.length === 0) throw new Error('an order needs items');
        return input;
      });
      // The whole order goes to the worker, phone included: the Python side is where it is lost.
      // The step's output is what was delivered with the worker's answer, so forensics follows
      // the order's fields across the hand-off.
      const delivered = await journey.deliver('send-to-shipping', order, async (input) => {
        const reply = await fetch(`${workerUrl}/shipments`, {
          method: 'POST',
          headers: injectHttpHeaders({ 'content-type': 'application/json' }, journey),
          body: JSON.stringify(input),
        });
        return { ...input, shipping: { status: reply.status, answer: (await reply.json()) as unknown } };
      });
      response.writeHead(delivered.shipping.status === 200 ? 202 : 502, { 'content-type': 'application/json' });
      response.end(JSON.stringify(delivered.shipping.answer));
    } catch {
      response.writeHead(400).end();
    }
  });
}
