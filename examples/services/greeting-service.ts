/**
 * The service behind examples/myapis/greetingapis.json: what a user's REST service would be,
 * small enough to read. `swflow start` runs it while it serves the examples, so
 * examples/greeting.sw.json runs end to end through the REST adapter.
 */
import { createServer, type Server } from 'node:http';

export const GREETING_SERVICE_PORT = 8091;

export function startGreetingService(port = GREETING_SERVICE_PORT): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const name = url.searchParams.get('name');
    res.setHeader('content-type', 'application/json');
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
