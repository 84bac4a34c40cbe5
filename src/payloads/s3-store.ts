import type { PayloadStore } from './store';
// Placeholder until the S3 store lands (same session).
export class S3PayloadStore {
  constructor(url: string) {
    throw new Error(`SWFLOW_PAYLOAD_STORE: the S3 payload store is not built yet (${url.replace(/\/\/[^@/]*@/, '//…@')})`);
  }
}
export type _Unused = PayloadStore;
