/** The process adapter's pure parts: command lines per kind/language, outputs per `return`, failures by exit code. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandLine, processOutput, ProcessSpecError } from '../../adapters/process/process';

test('command lines: sh -c with $1…, node on a script file, python -c', () => {
  assert.deepEqual(commandLine({ kind: 'shell', code: 'echo $1', arguments: ['a'] }), { file: 'sh', args: ['-c', 'echo $1', 'sh', 'a'] });
  assert.deepEqual(commandLine({ kind: 'script', language: 'js', code: 'x', arguments: ['a'] }, '/tmp/s.mjs'), { file: process.execPath, args: ['/tmp/s.mjs', 'a'] });
  assert.deepEqual(commandLine({ kind: 'script', language: 'python', code: 'print(1)' }), { file: 'python3', args: ['-c', 'print(1)'] });
  assert.throws(() => commandLine({ kind: 'script', language: 'ruby', code: '' }), ProcessSpecError);
});

test('outputs: stdout by default, stderr, code, all, none; a non-zero exit fails unless the code is the output', () => {
  const r = { code: 0, stdout: 'out', stderr: 'err' };
  assert.deepEqual(processOutput({ kind: 'shell', code: '' }, r), { output: 'out' });
  assert.deepEqual(processOutput({ kind: 'shell', code: '', return: 'stderr' }, r), { output: 'err' });
  assert.deepEqual(processOutput({ kind: 'shell', code: '', return: 'none' }, r), { output: null });
  assert.deepEqual(processOutput({ kind: 'shell', code: '', return: 'code' }, { ...r, code: 4 }), { output: 4 });
  assert.deepEqual(processOutput({ kind: 'shell', code: '', return: 'all' }, { ...r, code: 4 }), { output: { code: 4, stdout: 'out', stderr: 'err' } });
  assert.equal(processOutput({ kind: 'shell', code: '' }, { ...r, code: 1 }), undefined);
});
