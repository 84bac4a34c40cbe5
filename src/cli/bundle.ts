/**
 * `swflow bundle`: bundles the interpreter's workflow code into the bundle cache and exits, so
 * that workers started later take it as it is, without webpack (src/worker/bundle-cache.ts; a
 * worker bundles on its first start otherwise). The image runs `swflow bundle --all` when it is built.
 */
import type { Command } from 'commander';
import { bundleCacheEnabled, bundleCacheFolder, cachedBundlePath, workflowStackTraces } from '../worker/bundle-cache';
import { bundleInterpreter } from '../worker/interpreter-worker';

export function register(program: Command): void {
  program
    .command('bundle')
    .description("Bundle the interpreter's workflow code into the cache, so that workers start without bundling it")
    .option('--tracing', 'the variant with OpenTelemetry workflow interceptors (for workers that trace)')
    .option('--all', 'both variants, plain and traced')
    .action(async (opts: { tracing?: boolean; all?: boolean }) => {
      if (!bundleCacheEnabled()) throw new Error('SWFLOW_BUNDLE_CACHE is off: nothing would be kept');
      const stackTraces = workflowStackTraces();
      for (const tracing of opts.all ? [false, true] : [!!opts.tracing]) {
        const kind = tracing ? 'traced' : 'plain';
        const had = cachedBundlePath({ tracing, stackTraces });
        const t = Date.now();
        if (!had) await bundleInterpreter({ tracing, stackTraces });
        const path = cachedBundlePath({ tracing, stackTraces });
        if (!path) throw new Error(`the ${kind} bundle could not be kept in ${bundleCacheFolder()} (is it writable? SWFLOW_CACHE names another folder)`);
        console.log(`${kind} bundle: ${path} (${had ? 'up to date' : `built in ${((Date.now() - t) / 1000).toFixed(1)} s`})`);
      }
    });
}
