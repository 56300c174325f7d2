// A TCP relay on loopback that puts network faults between a jtrace instance and PgBouncer for
// scenario 7 (docs/deployment.md, "Network faults"). This kernel has no netem qdisc (`tc qdisc add
// ... netem` answers "Error: Specified qdisc kind is unknown."), and a veth between namespaces
// would need addresses outside 127.0.0.0/8, which these tests never use, so the faults are made
// here, on the byte stream each connection carries:
// - latency: every chunk is held `latencyMs` in each direction, in order;
// - loss: TCP resends a lost segment, so what the application sees is a stall: a chunk is held
//   `lossStallMs` more with probability `loss` (Linux's minimum retransmission timeout is 200 ms);
// - reset: every connection under way is closed with a TCP RST on both sides.

import net from 'node:net';
import { sleep } from './topology.ts';

export interface Faults {
  latencyMs: number;
  loss: number;
  lossStallMs: number;
}

export const NO_FAULTS: Faults = { latencyMs: 0, loss: 0, lossStallMs: 0 };

export interface FaultRelay {
  port: number;
  /** Connections relayed so far, and those cut by resetAll. */
  stats: { connections: number; reset: number };
  set(faults: Faults): void;
  /** Sends RST on both sides of every connection under way. */
  resetAll(): number;
  close(): Promise<void>;
}

export async function startFaultRelay(targetPort: number): Promise<FaultRelay> {
  let faults = NO_FAULTS;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const stats = { connections: 0, reset: 0 };

  /** Copies from one socket to the other, each chunk after its delay, in order. */
  const pipe = (from: net.Socket, to: net.Socket) => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      const delay = faults.latencyMs + (Math.random() < faults.loss ? faults.lossStallMs : 0);
      chain = chain.then(async () => {
        if (delay > 0) await sleep(delay);
        if (!to.destroyed) to.write(chunk);
      });
    });
    from.on('end', () => void chain.then(() => to.end()));
  };

  const server = net.createServer((client) => {
    stats.connections++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stats,
    set(next) {
      faults = next;
    },
    resetAll() {
      const cut = pairs.size;
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
      stats.reset += cut;
      return cut;
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
