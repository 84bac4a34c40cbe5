import type { PayloadStore } from './store';
// Placeholder until the PostgreSQL store lands (same session).
export class PostgresPayloadStore {
  constructor(url: string) {
    throw new Error(`SWFLOW_PAYLOAD_STORE: the PostgreSQL payload store is not built yet (${url.replace(/\/\/[^@/]*@/, '//…@')})`);
  }
}
export type _Unused = PayloadStore;
