/**
 * The workflow bundle, built as the interpreter worker builds it (bundleInterpreter: the generic
 * workflow, its interceptors, the jq engine preloaded), must come out clean: no bundler warning or
 * error, no module of the SDK's disallowed list (Node builtins other than assert/url/util, the
 * client, the worker, …: the bundler refuses them), and no Node builtin left as a plain
 * `require("fs")` in the code (it would throw in the workflow sandbox at run time). A
 * `node:crypto` imported anywhere under src/workflow fails this test. And swflow's code is
 * compiled to es2022, without the es2017 target's helpers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import type { Configuration, Stats } from 'webpack';
import { bundleInterpreter } from '../../src/worker/interpreter-worker';

test('the workflow bundle has no bundler warning and no Node-only module', { timeout: 120_000 }, async () => {
  const logged: string[] = [];
  const webpackProblems: string[] = [];
  const record = (level: string) => (message: string) => logged.push(`${level}: ${message}`);
  const logger = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: record('warn'), error: record('error') };
  const webpackConfigHook = (config: Configuration): Configuration => ({
    ...config,
    plugins: [
      ...(config.plugins ?? []),
      {
        apply(compiler) {
          compiler.hooks.done.tap('swflow-bundle-test', (stats: Stats) => {
            const json = stats.toJson({ all: false, warnings: true, errors: true });
            for (const w of json.warnings ?? []) webpackProblems.push(`warning: ${w.message}`);
            for (const e of json.errors ?? []) webpackProblems.push(`error: ${e.message}`);
          });
        },
      },
    ],
  });
  let code: string;
  try {
    ({ code } = await bundleInterpreter({ logger: logger as never, webpackConfigHook }));
  } catch (err) {
    // The bundler rejects a disallowed module (node:crypto, @temporalio/client, …) by name.
    assert.fail(`the workflow code does not bundle: ${(err as Error).message}\n${[...webpackProblems, ...logged].join('\n')}`);
  }
  assert.deepEqual(webpackProblems, [], 'webpack warnings or errors');
  assert.deepEqual(logged, [], 'bundler warnings or errors');
  // It is the interpreter's bundle (the generic workflow, the effects port, the interceptors).
  for (const m of ['src/workflow/index.ts', 'src/workflow/effects.ts', 'src/workflow/interceptors.ts', 'src/workflow/v1/tasks/call.ts']) assert.ok(code.includes(m), `the bundle has ${m}`);
  const builtins = new Set(builtinModules.map((m) => m.replace(/^node:/, '')));
  const required = [...code.matchAll(/\brequire\(\s*(["'`])(?:node:)?([^"'`]+)\1\s*\)/g)].map((m) => m[2]).filter((m) => builtins.has(m) || builtins.has(m.split('/')[0]));
  assert.deepEqual([...new Set(required)], [], 'Node builtins required at run time');
  // swflow's own code compiled to es2022 (WORKFLOW_TARGET): object spreads and class fields as
  // written, not through SWC's helpers (an SDK whose loader rule changed shape would bring them back).
  const helpers = [...code.matchAll(/\bfunction (_object_spread|_object_spread_props|_object_without_properties|_define_property)\(/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(helpers)], [], 'es2017 helpers in the bundle');
});
