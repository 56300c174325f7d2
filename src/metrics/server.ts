import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

export interface MetricsServer {
  /** The port bound (the one asked for, or the one the system chose for 0). */
  port: number;
  close(): Promise<void>;
}

/** /metrics on its own port only, so the API port never exposes it. */
export function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') {
      metrics.registry
        .metrics()
        .then((text) => {
          response.writeHead(200, { 'content-type': metrics.registry.contentType });
          response.end(text);
        })
        .catch(() => {
          response.writeHead(500).end();
        });
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}
