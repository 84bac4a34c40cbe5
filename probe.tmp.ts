require('./src/worker/interpreter-worker'); require('./src/worker/adapter-worker');
const pk = new Map<string, number>();
for (const k of Object.keys(require.cache)) { const m = k.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/); const n = m ? m[1] : k.replace(process.cwd(), '.').split('/').slice(0, 3).join('/'); pk.set(n, (pk.get(n) ?? 0) + 1); }
console.log([...pk].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}:${v}`).join(' '));
console.log(Math.round(process.memoryUsage().rss / 1e6), 'MB');
