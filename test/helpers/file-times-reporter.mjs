// A node:test reporter beside `spec` (test/run.ts): the wall time of each test file, written as
// the slowest first at the end, so a CI log tells where the suite's minutes go. Files run one at a
// time, so a file's time runs from the previous file's last event to its own last one (its
// servers' start and stop included, which come before and after its first and last test).
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export default async function* fileTimes(source) {
  const last = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    // Node 22+ names a file both by its path and by its path relative to the working folder (or a URL).
    if (file) last.set(resolve(file.startsWith('file:') ? fileURLToPath(file) : file), Date.now());
  }
  let previous = START;
  const rows = [...last].sort((a, b) => a[1] - b[1]).map(([file, at]) => {
    const secs = (at - previous) / 1000;
    previous = at;
    return [relative(process.cwd(), file), secs];
  });
  rows.sort((a, b) => b[1] - a[1]);
  yield `[test] time per file (s), slowest first; ${rows.length} files, ${((previous - START) / 1000).toFixed(0)} s in all\n`;
  for (const [file, secs] of rows.slice(0, 40)) yield `[test] ${secs.toFixed(1).padStart(7)}  ${file}\n`;
}

const START = Date.now();
