// The swflow command's TypeScript (src/, adapters/, workers/, examples/) compiled to plain CommonJS, so the
// command runs without tsx (~40–55 MB less per process: bench/README.md, "What a worker costs").
//
// The JavaScript lives in <project>/.cache/js/<key>/ (else $SWFLOW_CACHE/js/<key>/ when the
// project cannot be written: see cacheRoot), where <key> hashes the content of every source file, this
// file and esbuild's version: a changed, added or removed source makes a new key, so stale code
// never runs. The first run after a change compiles (esbuild, well under a second). Each file is
// compiled alone (as tsx does) with `__dirname`/`__filename` set to its source's folder and file, so
// files found beside the sources (schemas, the run page, PROJECT_ROOT) are found as before. Source
// maps are written beside the files: `NODE_OPTIONS=--enable-source-maps` makes stack traces name
// the .ts lines. Delete .cache/js to force a rebuild; SWFLOW_TSX=1 runs the sources through tsx.
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

/**
 * Where compiled trees go: <project>/.cache/js when a tree is there or it can be written (an
 * image built with `RUN node bin/compiled.js` has one), else $SWFLOW_CACHE/js (a read-only
 * image, e.g. the Helm chart's), else the user's cache (an installed package in a read-only
 * node_modules; the folder src/platform/paths.ts's cacheDir() names).
 */
function cacheRoot(key) {
  const own = path.join(ROOT, '.cache', 'js');
  if (key && fs.existsSync(path.join(own, key, '.complete'))) return own;
  try {
    fs.mkdirSync(own, { recursive: true });
    fs.accessSync(own, fs.constants.W_OK);
    return own;
  } catch {
    const user = process.env.SWFLOW_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache'), 'swflow');
    return path.join(user, 'js');
  }
}

/** A tree outside the project finds the project's packages through node_modules links: its own, and where a package manager hoisted them. */
function linkPackages(tree, base) {
  if (!path.relative(ROOT, tree).startsWith('..')) return;
  const link = (target, at) => fs.existsSync(target) && !fs.existsSync(at) && fs.symlinkSync(target, at, 'dir');
  link(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  if (path.basename(path.dirname(ROOT)) === 'node_modules') {
    try {
      link(path.dirname(ROOT), path.join(base, 'node_modules'));
    } catch {
      // Another process linked it.
    }
  }
}

/** How one file compiles (as tsx would, but to a file; see the head comment). */
function transformOptions(source) {
  return {
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
  };
}

function writeCompiled(out, { code, map }) {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${code}//# sourceMappingURL=${path.basename(out)}.map\n`);
  fs.writeFileSync(`${out}.map`, map);
}

/** One more file of the project (e.g. a bench's worker, outside the command's folders) compiled into the current tree; its compiled path. */
async function compiledExtra(sourceFile) {
  const tree = await compiledTree();
  const out = path.join(tree, path.relative(ROOT, sourceFile).replace(/\.ts$/, '.js'));
  writeCompiled(out, await loadEsbuild().transform(fs.readFileSync(sourceFile, 'utf8'), transformOptions(sourceFile)));
  return out;
}

/** The folder of the compiled tree for the sources as they are now, compiling it when missing. */
async function compiledTree() {
  const esbuild = loadEsbuild();
  const files = sourceFiles();
  // The package's name and version go with the tree (src/common/runtime.ts reads `$runtime.version` from ../../package.json).
  const manifest = path.join(ROOT, 'package.json');
  const { name, version } = fs.existsSync(manifest) ? JSON.parse(fs.readFileSync(manifest, 'utf8')) : {};
  const pkg = `${JSON.stringify({ name, version, private: true }, null, 2)}\n`;
  const hash = crypto.createHash('sha256').update(`${esbuild.version}\0${ROOT}\0${process.version}\0`).update(fs.readFileSync(__filename)).update(pkg);
  const texts = files.map((f) => {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    hash.update(`${f}\0${text.length}\0`).update(text);
    return text;
  });
  const key = hash.digest('hex').slice(0, 20);
  const base = cacheRoot(key);
  const dir = path.join(base, key);
  if (fs.existsSync(path.join(dir, '.complete'))) {
    try {
      fs.utimesSync(dir, new Date(), new Date()); // in use: the newest for prune()
    } catch {
      // A read-only tree (an image's).
    }
    return dir;
  }
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const outputs = await Promise.all(
    files.map((f, i) => {
      const source = path.join(ROOT, f);
      return esbuild.transform(texts[i], transformOptions(source));
    }),
  );
  files.forEach((f, i) => writeCompiled(path.join(tmp, f.replace(/\.ts$/, '.js')), outputs[i]));
  fs.writeFileSync(path.join(tmp, 'package.json'), pkg);
  linkPackages(tmp, base);
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
    process.stderr.write(`swflow: running the TypeScript sources through tsx (compiling them failed: ${err.message})\n`);
    return undefined;
  }
  return path.join(dir, path.relative(ROOT, sourceFile).replace(/\.ts$/, '.js'));
}

module.exports = { compiledFile, compiledTree, compiledExtra, sourceFiles, ROOT };

// `node bin/compiled.js`: compile now (an image build does, so its containers start compiled), print the folder.
if (require.main === module) {
  compiledTree().then(
    (dir) => console.log(dir),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
