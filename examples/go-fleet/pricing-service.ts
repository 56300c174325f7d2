// The Node part of the Go fleet: pricing-service continues the journey order-intake (Go) started,
// from the request headers, prices the order, and calls the Python shipping worker with the
// journey in its own request headers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type Recorder, extractHttpContext, injectHttpHeaders } from '@jtrace/node';

interface Order {
  orderId: string;
  customer: { name: string; email: string; phone?: string };
  items: Array<{ sku: string; quantity: number }>;
}

const PRICES: Record<string, number> = { 'SKU-1': 1250, 'SKU-2': 800 };

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function createPricingService(recorder: Recorder, workerUrl: string): Server {
  return createServer(async (request, response) => {
    try {
      const order = (await readJson(request)) as Order;
      const journey = recorder.continueJourney({ context: extractHttpContext(request.headers), entity: { type: 'order', id: order.orderId } });
      const priced = journey.transform('price-order', order, (input) => ({
        ...input,
        totalCents: input.items.reduce((sum, item) => sum + (PRICES[item.sku] ?? 0) * item.quantity, 0),
      }));
      const shipped = await journey.deliver('send-to-shipping', priced, async (input) => {
        const reply = await fetch(`${workerUrl}/shipments`, {
          method: 'POST',
          headers: injectHttpHeaders({ 'content-type': 'application/json' }, journey),
          body: JSON.stringify(input),
        });
        return { ...input, shipping: (await reply.json()) as { labelId: string } };
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ totalCents: shipped.totalCents, labelId: shipped.shipping.labelId }));
    } catch {
      response.writeHead(500).end();
    }
  });
}
