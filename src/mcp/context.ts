/**
 * What every MCP tool works with: the definitions (`-d` folders, as `swflow ui` reads them), a
 * Temporal client made on first use (validating and drawing need no server), and whether this
 * request may use the operator's tools (the operator token: src/operations/token.ts).
 */
import { Client, Connection } from '@temporalio/client';
import { connectionOptions, targetFromEnv, unreachable, type ServerTarget } from '../client/connection';
import { dataConverterOptions } from '../codec';
import { DefinitionRegistry } from '../definitions/registry';
import { clientInterceptors } from '../tracing';

/** May this request use the destructive tools? When not, `why` says how to enable them (never the token). */
export type Access = { allowed: true } | { allowed: false; why: string };

export interface McpContext {
  registry: DefinitionRegistry;
  /** The Temporal client, connected on first use. */
  client(): Promise<Client>;
  /** The server target, for messages. */
  target: ServerTarget;
  access: Access;
  /** `path` arguments may name any file (stdio: the operator's own process); else only files inside the definitions folders (HTTP). */
  anyPath: boolean;
}

/** The Temporal connection shared by every request of the process: made on first use, made again after a failure. */
export class TemporalLink {
  readonly target: ServerTarget;
  private pending?: Promise<{ connection: Connection; client: Client }>;

  constructor(target = targetFromEnv() ?? { address: '127.0.0.1:7233', namespace: 'default' }) {
    this.target = target;
  }

  client(): Promise<Client> {
    this.pending ??= Connection.connect(connectionOptions(this.target)).then(
      (connection) => ({ connection, client: new Client({ connection, namespace: this.target.namespace, ...dataConverterOptions(), ...clientInterceptors() }) }),
      (err: Error) => {
        this.pending = undefined;
        throw new Error(`${unreachable(this.target)}: ${String(err.message).split('\n')[0]}`);
      },
    );
    return this.pending.then((c) => c.client);
  }

  async close(): Promise<void> {
    const c = await this.pending?.catch(() => undefined);
    await c?.connection.close();
  }
}
