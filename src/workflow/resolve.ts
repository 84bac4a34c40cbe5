/**
 * The seam between the generic workflow and the interpreter worker's local activity that
 * resolves (by workflow type) and pins the definition. Types and constants only.
 */
import type { WorkflowDef } from '../dsl/model';

export const RESOLVE_DEFINITION_ACTIVITY = 'swflow.resolveDefinition';

export interface ResolveRequest {
  /** The workflow type: `<id>` or `<id>@<version>`. */
  type: string;
  /** Given when the run was started with StartOptions.definition (then only hashed). */
  definition?: WorkflowDef;
}

export interface ResolveResult {
  /** The normalized definition; omitted when the request carried it. */
  definition?: WorkflowDef;
  /** sha256 of the canonical JSON of the definition (SwDefinitionHash). */
  hash: string;
  /** Where it came from (file path, or "start options"). */
  source: string;
  /** The custom search attributes registered on the server (only those are upserted). */
  searchAttributes: string[];
}

export const VALIDATE_DATA_ACTIVITY = 'swflow.validateData';

export interface ValidateDataRequest {
  schema: unknown;
  data: unknown;
}

/** Readable problems (`/path: message`); empty when the data matches the schema. */
export type ValidateDataResult = string[];
