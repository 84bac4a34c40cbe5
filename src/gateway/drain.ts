/**
 * A refusal must reach its sender whatever the sender's connection handling. The gateway often
 * answers before the body has arrived (413 on Content-Length, 401 on a bad token, 404, 503 while
 * shutting down) or while it arrives (413 over the limit). Closing the connection then, with body
 * bytes still coming, makes the kernel answer them with a reset, and a reset discards the answer
 * the sender has not read yet: a sender that writes its whole body before reading (or stops at
 * the first write error) saw "connection reset", never the 413.
 *
 * So after such an answer the rest of the body is read and discarded until the request ends, and
 * only then is the connection closed (when it was to close: `Connection: close` from the sender,
 * or the gateway shutting down); a keep-alive connection stays usable for the next request. When
 * the connection is to close, the gateway half-closes right after the answer (its FIN follows the
 * response, so a sender that reads sees the whole answer and the end) and keeps reading. Draining
 * is bounded: past `maxBytes` more body bytes or `timeoutMs`, the connection is cut.
 */
import type { IncomingMessage } from 'node:http';

export interface DrainLimits {
  /** Most body bytes read and discarded after a refusal. */
  maxBytes: number;
  /** Longest time the rest of a refused body may take. */
  timeoutMs: number;
}

/** Called when a refusal is answered: drains the rest of `req`'s body (if any) within `limits`, closing the connection after it if the answer closes it. */
export function drainAfterRefusal(req: IncomingMessage, limits: DrainLimits): void {
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  let bytes = 0;
  let ended = false;
  let closeWhenEnded = false;
  const cut = () => {
    clearTimeout(timer);
    req.off('data', count);
    socket.destroy();
  };
  const count = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) cut();
  };
  const timer = setTimeout(cut, limits.timeoutMs);
  timer.unref();
  req.on('data', count); // also keeps the body flowing (and discarded) when nothing else reads it
  req.once('end', () => {
    ended = true;
    clearTimeout(timer);
    req.off('data', count);
    if (closeWhenEnded) socket.destroy(); // everything the sender sent was read: a clean close, no reset
  });
  socket.once('close', () => clearTimeout(timer));
  // Node closes the connection of an answer that says `Connection: close` as soon as it is
  // written (socket.destroySoon: end, then destroy). Instead: half-close now, destroy once the
  // body has ended (or the limits cut it).
  const destroySoon = socket.destroySoon;
  socket.destroySoon = function lingeringDestroySoon(this: typeof socket) {
    socket.destroySoon = destroySoon;
    if (ended) return destroySoon.call(socket);
    closeWhenEnded = true;
    socket.end();
  };
}
