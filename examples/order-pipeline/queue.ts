// A stand-in for a message queue (SQS, Pub/Sub, RabbitMQ): a body plus string attributes.
export interface QueueMessage {
  body: string;
  attributes: Record<string, string>;
}

export class InMemoryQueue {
  private readonly messages: QueueMessage[] = [];
  private readonly waiters: Array<(message: QueueMessage) => void> = [];

  send(body: string, attributes: Record<string, string>): void {
    const message = { body, attributes: { ...attributes } };
    const waiter = this.waiters.shift();
    if (waiter) waiter(message);
    else this.messages.push(message);
  }

  receive(): Promise<QueueMessage> {
    const message = this.messages.shift();
    if (message) return Promise.resolve(message);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
