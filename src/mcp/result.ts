/**
 * How every tool answers: a short line for the reader, the JSON (as text, for clients that show
 * only text, and as structuredContent, for those that read it), or an error result (`isError`:
 * the agent sees why and can act on it, where a thrown error would be a protocol error).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function answer(summary: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: `${summary}\n${JSON.stringify(structured, null, 2)}` }], structuredContent: structured };
}

export function refusal(message: string, structured: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text: message }], structuredContent: { error: message, ...structured }, isError: true };
}

/** The first line of an error's message (and of its cause's): Temporal's errors carry long gRPC detail. */
export function errorText(err: unknown): string {
  const first = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0];
  const cause = (err as Error)?.cause;
  return cause && first(cause) !== first(err) ? `${first(err)}: ${first(cause)}` : first(err);
}

/** Runs a tool's body; what it throws becomes an error result naming the tool. */
export async function guarded(tool: string, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return refusal(`${tool}: ${errorText(err)}`);
  }
}
