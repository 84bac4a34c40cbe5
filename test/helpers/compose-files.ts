/** Checks of Compose files read with `yaml` (test/deploy: deploy/compose and temporal-dev.yml). */
import assert from 'node:assert/strict';

/**
 * Every service's `depends_on` is `order`'s (service → dependency → condition), a service waited
 * for as healthy has a health check, and one waited for as completed is one of `oneShots`, with
 * no restart policy (a one-shot that restarts never completes).
 */
export function assertStartOrder(services: Record<string, any>, order: Record<string, Record<string, string>>, oneShots: string[]): void {
  for (const [name, s] of Object.entries(services)) {
    const deps = Object.fromEntries(Object.entries<any>(s.depends_on ?? {}).map(([dep, { condition }]) => [dep, condition]));
    assert.deepEqual(deps, order[name], name);
    for (const [dep, condition] of Object.entries(deps)) {
      if (condition === 'service_healthy') assert.ok(services[dep].healthcheck, `${name} waits for ${dep} to be healthy: it needs a health check`);
      else assert.ok(oneShots.includes(dep) && services[dep].restart === undefined, `${dep} is one-shot`);
    }
  }
}
