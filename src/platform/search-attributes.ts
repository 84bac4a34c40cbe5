/** The project's search attributes, as typed keys for the SDK and as CLI flags for the dev server. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../common/contracts';

type AttributeKind = (typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES];

/** The SDK's type and the operator API's IndexedValueType number of each kind swflow uses. */
export const KINDS: Record<AttributeKind, { sdk: SearchAttributeType; indexed: number }> = {
  Keyword: { sdk: SearchAttributeType.KEYWORD, indexed: 2 /* INDEXED_VALUE_TYPE_KEYWORD */ },
  KeywordList: { sdk: SearchAttributeType.KEYWORD_LIST, indexed: 7 /* INDEXED_VALUE_TYPE_KEYWORD_LIST */ },
};

export const searchAttributeKeys = Object.entries(SEARCH_ATTRIBUTES).map(([name, kind]) => defineSearchAttributeKey(name, KINDS[kind].sdk));

/** `--search-attribute Name=Keyword ...` for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}

/**
 * Registers swflow's search attributes on a server started elsewhere (self-hosted cluster).
 * Returns a warning instead of failing where the operator API is not allowed (Temporal Cloud:
 * add them with `tcld namespace search-attributes add`).
 */
export async function ensureSearchAttributes(
  connection: import('@temporalio/client').Connection,
  namespace: string,
): Promise<string | undefined> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {})));
    if (missing.length === 0) return undefined;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, kind]) => [name, KINDS[kind].indexed])),
    });
    return undefined;
  } catch (err) {
    return (
      `Could not register search attributes ${Object.keys(SEARCH_ATTRIBUTES).join(', ')} ` +
      `(${(err as Error).message}); runs work, but cannot be filtered by them until an operator adds them.`
    );
  }
}
