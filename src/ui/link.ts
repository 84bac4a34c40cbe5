/**
 * The link from a run in the Temporal Web UI to its run page: Markdown for the run's
 * `staticDetails` (shown under User Metadata), set by the client that starts the run. The page's
 * address is configuration (SWFLOW_UI_URL, which `swflow start` sets to its own page), never read
 * by workflow code: start options are not workflow commands, so replay is unaffected.
 */
export function runPageUrl(workflowId: string, base: string | undefined = process.env.SWFLOW_UI_URL): string | undefined {
  if (!base) return undefined;
  return `${base.replace(/\/$/, '')}/runs/${encodeURIComponent(workflowId)}`;
}

/** `details` (a definition's description, say) with the run page link under it; undefined when neither. */
export function withRunPageLink(workflowId: string, details?: string, base?: string): string | undefined {
  const url = runPageUrl(workflowId, base ?? process.env.SWFLOW_UI_URL);
  const link = url ? `[Watch this run on its graph](${url})` : undefined;
  return [details, link].filter(Boolean).join('\n\n') || undefined;
}
