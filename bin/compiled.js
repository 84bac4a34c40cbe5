// The swflow command's TypeScript (src/, adapters/, workers/, examples/) compiled to plain CommonJS, so the
// command runs without tsx (~40–55 MB less per process: bench/README.md, "What a worker costs").
//
// The JavaScript lives in <cache>/js/<key>/ (<cache> is $SWFLOW_CACHE, else <project>/.cache, as
// cacheDir() in src/platform/paths.ts), where <key> hashes the content of every source file, this
// file and esbuild's version: a changed, added or removed source makes a new key, so stale code
// never runs. The first run after a change compiles (esbuild, well under a second). Each file is
// compiled alone (as tsx does) with `__dirname`/`__filename` set to its source's folder and file, so
// files found beside the sources (schemas, the run page, PROJECT_ROOT) are found as before. Source
// maps are written beside the files: `NODE_OPTIONS=--enable-source-maps` makes stack traces name
// the .ts lines. Delete <cache>/js to force a rebuild; SWFLOW_TSX=1 runs the sources through tsx.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** The folders the command's code lives in. */
const SOURCES = ['src', 'adapters', 'workers', 'examples'];
/** Compiled trees kept: older ones go (a process still running from one has loaded what it needs, but for adapters it loads on a first call). */
const KEEP = 8;

function sourceFiles() {
  const out = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(r);
    }
  };
  for (const dir of SOURCES) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  return out.sort();
}

function loadEsbuild() {
  // esbuild comes with tsx (one of swflow's dependencies).
  const from = path.dirname(require.resolve('tsx/package.json', { paths: [ROOT] }));
  return require(require.resolve('esbuild', { paths: [from, ROOT] }));
}

function cacheRoot() {
  return path.join(process.env.SWFLOW_CACHE ?? path.join(ROOT, '.cache'), 'js');
}

/** The folder of the compiled tree for the sources as they are now, compiling it when missing. */
async function compiledTree() {
  const esbuild = loadEsbuild();
  const files = sourceFiles();
  const hash = crypto.createHash('sha256').update(`${esbuild.version}\0${ROOT}\0${process.version}\0`).update(fs.readFileSync(__filename));
  const texts = files.map((f) => {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    hash.update(`${f}\0${text.length}\0`).update(text);
    return text;
  });
  const base = cacheRoot();
  const dir = path.join(base, hash.digest('hex').slice(0, 20));
  if (fs.existsSync(path.join(dir, '.complete'))) {
    fs.utimesSync(dir, new Date(), new Date()); // in use: the newest for prune()
    return dir;
  }
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const outputs = await Promise.all(
    files.map((f, i) => {
      const source = path.join(ROOT, f);
      return esbuild.transform(texts[i], {
        loader: 'ts',
        format: 'cjs',
        platform: 'node',
        target: `node${process.versions.node.split('.')[0]}`,
        // import() of a relative module or a package becomes require(), as tsc's CommonJS does.
        supported: { 'dynamic-import': false },
        define: { __dirname: JSON.stringify(path.dirname(source)), __filename: JSON.stringify(source) },
        sourcemap: 'external',
        sourcefile: source,
        tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, esModuleInterop: true } },
      });
    }),
  );
  files.forEach((f, i) => {
    const out = path.join(tmp, f.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${outputs[i].code}//# sourceMappingURL=${path.basename(out)}.map\n`);
    fs.writeFileSync(`${out}.map`, outputs[i].map);
  });
  fs.writeFileSync(path.join(tmp, '.complete'), '');
  try {
    fs.renameSync(tmp, dir);
  } catch (err) {
    // Another process compiled the same sources first: use theirs.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(dir, '.complete'))) throw err;
  }
  prune(base, dir);
  return dir;
}

/** Removes all but the KEEP newest compiled trees (and half-written ones of processes long gone). */
function prune(base, current) {
  try {
    const trees = fs
      .readdirSync(base)
      .map((name) => path.join(base, name))
      .filter((d) => d !== current)
      .map((d) => ({ d, at: fs.statSync(d).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    const hourAgo = Date.now() - 3600_000;
    trees.forEach(({ d, at }, i) => {
      if (i >= KEEP - 1 || (d.endsWith('.tmp') && at < hourAgo)) fs.rmSync(d, { recursive: true, force: true });
    });
  } catch {
    // A tree another process is removing: nothing to do.
  }
}

/** The compiled file of `sourceFile` (a path under the project, `.ts`), or undefined when the sources cannot be compiled here. */
async function compiledFile(sourceFile) {
  if (process.env.SWFLOW_TSX === '1') return undefined;
  let dir;
  try {
    dir = await compiledTree();
  } catch (err) {
    process.stderr.write(`swflow: running the TypeScript sources through tsx (compiling them to ${cacheRoot()} failed: ${err.message})\n`);
    return undefined;
  }
  return path.join(dir, path.relative(ROOT, sourceFile).replace(/\.ts$/, '.js'));
}

module.exports = { compiledFile, compiledTree, sourceFiles, ROOT };
