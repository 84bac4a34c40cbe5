/**
 * A real MQTT broker for tests: the embedded `aedes` broker (MQTT 3.1.1, in memory) on a free
 * loopback port, so no system package is needed. Shared by the gateway's MQTT inbound tests and,
 * later, the AsyncAPI adapter's.
 *
 *   const broker = await startMqttBroker();
 *   ... mqtt.connectAsync(broker.url) ...
 *   await broker.close();
 */
import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import { freePort } from './ports';

export interface MqttBroker {
  /** `mqtt://127.0.0.1:<port>` */
  url: string;
  port: number;
  broker: Aedes;
  /** Messages published so far, by topic (every client's, the broker's view). */
  published: { topic: string; payload: Buffer }[];
  close(): Promise<void>;
}

export async function startMqttBroker(): Promise<MqttBroker> {
  const broker = await Aedes.createBroker();
  const published: MqttBroker['published'] = [];
  broker.on('publish', (packet, client) => {
    if (client) published.push({ topic: packet.topic, payload: Buffer.from(packet.payload) });
  });
  const server: Server = createServer(broker.handle);
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    broker,
    published,
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
