/**
 * Shared by the corpus test: reads /work/shared/corpus (at ../shared relative to the repo
 * root) and its MANIFEST.md classes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const SHARED = path.resolve(__dirname, '..', '..', '..', 'shared');
export const CORPUS = path.join(SHARED, 'corpus');

export interface Entry {
  file: string;
  cls: string;
  remark: string;
}

export function manifest(): Entry[] {
  const text = fs.readFileSync(path.join(CORPUS, 'MANIFEST.md'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| local path'))
    .map((l) => l.split('|').map((c) => c.trim()))
    .filter((c) => c.length > 8 && !/^-+$/.test(c[1]))
    .map((c) => ({ file: c[1], cls: c[6], remark: c[8] }));
}

/**
 * The sdk-go and sdk-java tests resolve `file://testdata/...` and `features/...` against
 * their own working directories, not against the definition. This rebuilds those
 * directories (symlinks) so the references resolve as they do there.
 */
export function includeDirsFor(file: string): string[] {
  if (file.startsWith('sdk-java/')) return [path.join(CORPUS, 'sdk-java')];
  if (file.startsWith('sdk-go/')) return [sdkGoParserDir()];
  return [];
}

let goDir: string | undefined;
function sdkGoParserDir(): string {
  if (goDir) return goDir;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'swflow-sdkgo-'));
  const td = path.join(dir, 'testdata');
  fs.mkdirSync(td);
  for (const f of fs.readdirSync(path.join(CORPUS, 'sdk-go', 'testdata'))) fs.symlinkSync(path.join(CORPUS, 'sdk-go', 'testdata', f), path.join(td, f));
  fs.symlinkSync(path.join(CORPUS, 'sdk-go', 'valid'), path.join(td, 'workflows'));
  goDir = dir;
  return dir;
}
