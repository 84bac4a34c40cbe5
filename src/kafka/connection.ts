/**
 * How swflow's Kafka clients (the gateway's consumer, the event sink) reach a cluster: the
 * bootstrap brokers, and SASL and TLS from the environment, so credentials stay out of flags
 * (which `ps` shows) and out of logs.
 *
 *   SWFLOW_KAFKA_BROKERS         host:port,host:port (the default of --kafka-brokers)
 *   SWFLOW_KAFKA_SASL_MECHANISM  PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
 *   SWFLOW_KAFKA_USERNAME / SWFLOW_KAFKA_PASSWORD
 *   SWFLOW_KAFKA_TLS             1: TLS to the brokers (SWFLOW_KAFKA_CA: a PEM file of CAs to trust)
 *
 * The AsyncAPI adapter reads its servers' security from the document and the worker's secrets
 * instead (adapters/asyncapi/kafka.ts).
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

/** Kafka's own rule for topic names: 1 to 249 of a-z A-Z 0-9 . _ - */
export const KAFKA_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/** What a client needs besides its own id and the brokers. */
export interface KafkaSecurity {
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
  tls?: ConnectionOptions;
}

/** `host:port` entries of a comma-separated list, checked (a missing port is 9092). */
export function parseBrokers(list: string | string[], what = '--kafka-brokers'): string[] {
  const entries = (Array.isArray(list) ? list : [list]).flatMap((e) => e.split(',')).map((e) => e.trim()).filter(Boolean);
  if (!entries.length) throw new Error(`${what} names no broker`);
  return entries.map((e) => {
    const m = /^(\[[^\]]+\]|[^:\s/]+)(?::(\d+))?$/.exec(e);
    if (!m) throw new Error(`${what}: '${e}' is not host:port`);
    const port = m[2] === undefined ? 9092 : Number(m[2]);
    if (!(port > 0 && port < 65536)) throw new Error(`${what}: '${e}' has no valid port`);
    return `${m[1]}:${port}`;
  });
}

/** SASL and TLS from the environment (see above); a mechanism without its credentials is an error that says which variable is missing. */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv = process.env): KafkaSecurity {
  const out: KafkaSecurity = {};
  const mechanism = env.SWFLOW_KAFKA_SASL_MECHANISM?.trim().toUpperCase();
  if (mechanism) {
    if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) throw new Error(`SWFLOW_KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')} (got ${JSON.stringify(mechanism)})`);
    const username = env.SWFLOW_KAFKA_USERNAME;
    const password = env.SWFLOW_KAFKA_PASSWORD;
    if (!username || password === undefined) throw new Error(`SWFLOW_KAFKA_SASL_MECHANISM=${mechanism} needs SWFLOW_KAFKA_USERNAME and SWFLOW_KAFKA_PASSWORD`);
    out.sasl = { mechanism: mechanism as SaslMechanism, username, password };
  }
  if (env.SWFLOW_KAFKA_TLS === '1' || env.SWFLOW_KAFKA_TLS === 'true' || env.SWFLOW_KAFKA_CA) {
    const ca = env.SWFLOW_KAFKA_CA;
    let caText: string | undefined;
    if (ca) {
      try {
        caText = readFileSync(ca, 'utf8');
      } catch (err) {
        throw new Error(`SWFLOW_KAFKA_CA=${ca} cannot be read: ${(err as Error).message}`);
      }
    }
    out.tls = caText ? { ca: caText } : {};
  }
  return out;
}

/** The @platformatic/kafka connection options of a security setting. */
export function clientSecurity(security: KafkaSecurity): { sasl?: KafkaSecurity['sasl']; tls?: ConnectionOptions } {
  return { ...(security.sasl ? { sasl: security.sasl } : {}), ...(security.tls ? { tls: security.tls } : {}) };
}
