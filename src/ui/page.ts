/**
 * The run page's assets: plain HTML, CSS and JavaScript in src/ui/public (no build step, no
 * framework, nothing from a CDN), read once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../platform/paths';

/** Next to this module (src/ui), or the sources' copy when running from a build (dist/ui). */
const DIR = existsSync(join(__dirname, 'public')) ? join(__dirname, 'public') : join(PROJECT_ROOT, 'src', 'ui', 'public');

const read = (name: string) => readFileSync(join(DIR, name), 'utf8');

export const PAGE_HTML = read('index.html');
export const PAGE_CSS = read('app.css');
export const PAGE_JS = read('app.js');
