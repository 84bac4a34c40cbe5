/** Environment variables a test file sets for its in-process clients and workers, and gives back. */

/** Sets `vars` (undefined: unsets) in process.env; the function returned puts every one back as it was. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  return () => apply(saved);
}
