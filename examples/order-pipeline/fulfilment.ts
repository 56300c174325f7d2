// Service two, `fulfilment`: accepts fulfilment requests over HTTP (the journey arrives in the
// headers), queues them with the journey in the message attributes, and a worker books a carrier,
// retrying a failed booking.
import { createServer, type Server } from 'node:http';
import { type Recorder, extractHttpContext, extractMessageContext, injectMessageAttributes } from '@jtrace/node';
import type { FulfilmentRequest } from './order-api.ts';
import type { InMemoryQueue } from './queue.ts';

export type Carrier = (shipment: FulfilmentRequest) => Promise<{ trackingId: string }>;

export const MAX_BOOKING_ATTEMPTS = 3;

export function createFulfilmentApi(recorder: Recorder, queue: InMemoryQueue): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const journey = recorder.continueJourney({ context: extractHttpContext(request.headers) });
      const shipment = journey.receive('accept-fulfilment', Buffer.concat(chunks).toString('utf8'), (text) => JSON.parse(text) as FulfilmentRequest);
      journey.publish('queue-shipment', shipment, (message) => queue.send(JSON.stringify(message), injectMessageAttributes({}, journey)));
      response.writeHead(202).end();
    });
  });
}

/** Takes one message and books its shipment, retrying a failed booking. */
export async function processNextShipment(recorder: Recorder, queue: InMemoryQueue, carrier: Carrier): Promise<boolean> {
  const message = await queue.receive();
  const journey = recorder.continueJourney({ context: extractMessageContext(message.attributes) });
  const shipment = journey.consume('take-shipment', message.body, (body) => JSON.parse(body) as FulfilmentRequest);
  for (let attempt = 1; attempt <= MAX_BOOKING_ATTEMPTS; attempt++) {
    try {
      await journey.deliver('book-carrier', shipment, carrier, { attempt });
      journey.finish('shipment-booked');
      return true;
    } catch (error) {
      if (attempt === MAX_BOOKING_ATTEMPTS) journey.fail('move-to-dead-letter', error);
    }
  }
  return false;
}
