/**
 * The message a call sends, and the channel it goes to. The arguments are the message payload
 * (the spec's example: `{ id, lumens, sentAt }`); a channel parameter (`light/{streetlightId}/on`)
 * takes the argument of the same name, which stays in the payload too. Received messages are
 * read back by their content type.
 */
import { operationError, type Json } from '../../src/adapter-sdk';

const isJson = (contentType: string) => /(^|\/|\+)json\b/i.test(contentType);

/** The payload as bytes: JSON for a JSON content type (and whenever the payload is not a string), the string itself otherwise. */
export function encodePayload(payload: Json, contentType: string): string {
  return typeof payload === 'string' && !isJson(contentType) ? payload : JSON.stringify(payload);
}

/** A received payload: parsed JSON for a JSON content type (text when it does not parse), text otherwise. */
export function decodePayload(bytes: Buffer, contentType: string): Json {
  const text = bytes.toString('utf8');
  if (!isJson(contentType)) return text;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/**
 * The channel's address with its parameters filled from the arguments: percent-encoded in an
 * HTTP path; as they are in an MQTT topic, where a value must not hold `/`, `+` or `#` (it would
 * change the topic's levels), nor in an AMQP routing key `.`, `*` or `#`; a Kafka topic takes only `[A-Za-z0-9._-]`. `wildcard` stands for a parameter without an argument (MQTT's `+`
 * when receiving); without it, a missing one is an error.
 */
export function channelAddress(template: string, args: Json, protocol: 'http' | 'mqtt' | 'amqp' | 'kafka', wildcard?: string): string {
  const values = args && typeof args === 'object' && !Array.isArray(args) ? args : {};
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined || v === null) {
      if (wildcard !== undefined) return wildcard;
      throw operationError(`the channel "${template}" needs the argument "${name}"`);
    }
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (protocol === 'http') return encodeURIComponent(text);
    if (protocol === 'kafka') {
      if (!/^[A-Za-z0-9._-]+$/.test(text)) throw operationError(`the argument "${name}" of the channel "${template}" is ${JSON.stringify(text)}: a Kafka topic name holds only letters, digits, ".", "_" and "-"`);
      return text;
    }
    if (protocol === 'amqp') {
      if (/[.*#]/.test(text)) throw operationError(`the argument "${name}" of the channel "${template}" is ${JSON.stringify(text)}: an AMQP routing key word cannot hold ".", "*" or "#"`);
      return text;
    }
    if (/[/+#]/.test(text)) throw operationError(`the argument "${name}" of the channel "${template}" is ${JSON.stringify(text)}: an MQTT topic level cannot hold "/", "+" or "#"`);
    return text;
  });
}
