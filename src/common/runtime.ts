/**
 * What swflow says of itself: `$runtime.name` and `$runtime.version` in 1.0 expressions, and the
 * CLI's `--version`. The version is package.json's, so a release never has to remember to bump it here.
 */
import pkg from '../../package.json';

export const RUNTIME_NAME = 'swflow';
export const RUNTIME_VERSION: string = pkg.version;
