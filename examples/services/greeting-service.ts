/**
 * The service behind examples/myapis/greetingapis.json: what a user's REST service would be,
 * small enough to read. `swflow start` runs it while it serves the examples, so
 * examples/greeting.sw.json runs end to end through the REST adapter, and
 * examples/order-payment.sw.yaml (1.0) records payments with `POST /orders/{orderId}/payment`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export const GREETING_SERVICE_PORT = 8091;

export function startGreetingService(port = GREETING_SERVICE_PORT): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const name = url.searchParams.get('name');
    res.setHeader('content-type', 'application/json');
    const payment = /^\/orders\/([^/]+)\/payment$/.exec(url.pathname);
    if (req.method === 'POST' && payment) return recordPayment(decodeURIComponent(payment[1]), req, res);
    if (req.method !== 'GET' || url.pathname !== '/greeting') {
      res.statusCode = 404;
      return res.end(JSON.stringify({ message: `no ${req.method} ${url.pathname} here` }));
    }
    if (!name) {
      res.statusCode = 400;
      return res.end(JSON.stringify({ message: 'query parameter "name" is required' }));
    }
    res.end(JSON.stringify({ greeting: `Welcome to Serverless Workflow, ${name}!` }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** `POST /orders/{orderId}/payment` with `{ amount }`: the payment recorded, with a receipt number. */
function recordPayment(orderId: string, req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    let amount: unknown;
    try {
      amount = JSON.parse(body || '{}').amount;
    } catch {
      amount = undefined;
    }
    if (typeof amount !== 'number' || !(amount > 0)) {
      res.statusCode = 400;
      return res.end(JSON.stringify({ message: 'the body must be { "amount": <a positive number> }' }));
    }
    res.end(JSON.stringify({ orderId, amount, status: 'paid', receipt: `R-${orderId}` }));
  });
}
