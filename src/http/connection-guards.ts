// Guards of the HTTP connection itself, before any route: what Node's server leaves open.
// docs/hostile-input.md, "Timeouts and connections", says why each exists.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';

/**
 * Node answers an HTTP/1.1 request without Host with a bare 400 and no body; the server is
 * created with `requireHostHeader: false` so that this hook answers it in the spec's error
 * shape, with a request id. HTTP/1.0 has no Host requirement. The connection is closed: a
 * client that omits Host is not one to keep talking to.
 */
export async function refuseMissingHost(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return;
  throw new AppError(400, 'bad_request', 'An HTTP/1.1 request must carry a Host header.', undefined, { connection: 'close' });
}

/**
 * Requests at most in flight on one connection: received, their answer not yet finished. Node
 * answers pipelined requests in order but starts every one it has parsed, and a client that
 * reads nothing makes each queued answer hold its buffers. Browsers do not pipeline; a client
 * that sends more than this many at once has its connection closed.
 */
export const MAX_PIPELINED_REQUESTS = 16;

/**
 * Answer bytes a pipelining connection may have handed over and then leave silent for the write
 * timeout before it is reset. Node hands an answer to the kernel as fast as the kernel takes it
 * (up to 4 MB per connection on Linux, whether the client reads or not), and once there it is
 * invisible to the write check: eight pipelined 308 KB documents per connection, never read, held
 * 2.4 MB each until the idle timeout. Smaller answers cost less than the connection itself.
 */
export const PIPELINED_UNREAD_BYTES = 262_144;

const inFlight = new WeakMap<object, number>();
/** Pipelining connections: bytesWritten when a request first arrived behind an unfinished answer. */
const pipelinedSince = new WeakMap<object, number>();

/** onRequest hook closing a connection that has more than MAX_PIPELINED_REQUESTS in flight. */
export async function boundPipelinedRequests(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const socket = request.raw.socket;
  const count = (inFlight.get(socket) ?? 0) + 1;
  inFlight.set(socket, count);
  // A request sent alone may follow a read answer; one sent behind another was sent without reading.
  if (count === 1) pipelinedSince.delete(socket);
  else if (!pipelinedSince.has(socket)) pipelinedSince.set(socket, socket.bytesWritten ?? 0);
  reply.raw.once('close', () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
  if (count <= MAX_PIPELINED_REQUESTS) return;
  // Anyone can provoke this: debug, as client aborts (docs/hostile-input.md).
  request.log.debug({ inFlight: count }, 'too many pipelined requests: connection closed');
  reply.hijack();
  socket.destroy();
}

/**
 * Closes connections whose answers are not read, by a reset: a plain close leaves what the
 * kernel holds queued behind the client's closed window, a reset frees it at once.
 * - A connection with bytes waiting to be handed to the kernel (the client's window is full) and
 *   no progress for writeTimeoutMs. Node has no write timeout: `server.timeout` is an inactivity
 *   timeout that would also cut a request whose handler is still working, and keep-alive and
 *   request timeouts ignore a connection with an answer in progress. Progress is a drain or fewer
 *   bytes waiting; one write is one step, so one large answer must be taken whole in the timeout.
 * - A pipelining connection that was handed PIPELINED_UNREAD_BYTES or more since it began to
 *   pipeline, all of it taken by the kernel, and has neither sent nor been sent a byte since for
 *   writeTimeoutMs: nothing shows it read them, and the idle timeout would keep them for 72 s. A
 *   client that sends one request at a time is left to the idle timeout: a slow but steady reader
 *   of one large answer looks the same from here.
 */
export function closeStalledWriters(server: Server, writeTimeoutMs: number, onClose: () => void): () => void {
  const sockets = new Set<Socket>();
  const stalls = new WeakMap<Socket, { pending: number; sinceMs: number }>();
  const traffic = new WeakMap<Socket, { read: number; written: number; sinceMs: number }>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('drain', () => stalls.delete(socket));
    socket.once('close', () => sockets.delete(socket));
  });
  const close = (socket: Socket) => {
    stalls.delete(socket);
    onClose();
    try {
      socket.resetAndDestroy();
    } catch {
      // Only a TCP socket can be reset (a pipe or a TLS socket throws): closed instead.
      socket.destroy();
    }
  };
  const check = () => {
    const now = performance.now();
    for (const socket of sockets) {
      const pending = socket.writableLength;
      const stall = stalls.get(socket);
      if (pending === 0) {
        stalls.delete(socket);
        if (unreadPipelineIdle(socket, now)) close(socket);
      } else if (stall === undefined || pending < stall.pending) {
        stalls.set(socket, { pending, sinceMs: now });
      } else if (now - stall.sinceMs >= writeTimeoutMs) {
        close(socket);
      } else {
        stall.pending = pending;
      }
    }
  };
  const unreadPipelineIdle = (socket: Socket, now: number): boolean => {
    const since = pipelinedSince.get(socket);
    const read = socket.bytesRead;
    const written = socket.bytesWritten ?? 0;
    const seen = traffic.get(socket);
    if (since === undefined || written - since < PIPELINED_UNREAD_BYTES) return false;
    if (seen === undefined || seen.read !== read || seen.written !== written) {
      traffic.set(socket, { read, written, sinceMs: now });
      return false;
    }
    return now - seen.sinceMs >= writeTimeoutMs;
  };
  // Checked a few times per timeout, as Node checks its own timeouts, at most every second.
  const timer = setInterval(check, Math.max(25, Math.min(1_000, Math.floor(writeTimeoutMs / 4))));
  timer.unref();
  return () => clearInterval(timer);
}
