// A name whose DNS answer changes after the first lookup, and two loopback listeners on one port:
// 127.0.0.1 answers 200 and stands for the address the check accepted; 127.0.0.2 stands for the
// address a rebinding name would switch to, and only counts the connections it gets. A sender that
// looked the name up again at connect time would reach it.
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import type { Resolver } from '../../src/replay/sender.ts';

export const ACCEPTED_ADDRESS = '127.0.0.1';
export const REBOUND_ADDRESS = '127.0.0.2';

export interface LoopbackPair {
  port: number;
  /** Connections and request paths seen on 127.0.0.1. */
  accepted: { connections: number; paths: string[] };
  /** Connections seen on 127.0.0.2: must stay 0. */
  rebound: { connections: number };
  close(): Promise<void>;
}

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const closed = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

export async function startLoopbackPair(): Promise<LoopbackPair> {
  const accepted = { connections: 0, paths: [] as string[] };
  const rebound = { connections: 0 };
  for (let tries = 0; ; tries++) {
    const good: Server = createServer((request, response) => {
      accepted.paths.push(request.url ?? '');
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    good.on('connection', () => accepted.connections++);
    await listen(good, 0, ACCEPTED_ADDRESS);
    const port = (good.address() as net.AddressInfo).port;
    const trap = net.createServer((socket) => {
      rebound.connections++;
      socket.destroy();
    });
    try {
      // The same port on the other address: only the address decides where a connection lands.
      await listen(trap, port, REBOUND_ADDRESS);
    } catch (error) {
      await closed(good);
      if (tries < 5) continue;
      throw error;
    }
    return {
      port,
      accepted,
      rebound,
      async close() {
        good.closeAllConnections();
        await Promise.all([closed(good), closed(trap)]);
      },
    };
  }
}

/** Answers 127.0.0.1 the first time, 127.0.0.2 every time after; records every name asked. */
export function rebindingResolver(): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    return [{ address: calls.length === 1 ? ACCEPTED_ADDRESS : REBOUND_ADDRESS, family: 4 }];
  };
  return Object.assign(resolve, { calls });
}

/** Answers one fixed address for any name; records every name asked. */
export function fixedResolver(address: string): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    return [{ address, family: 4 }];
  };
  return Object.assign(resolve, { calls });
}
