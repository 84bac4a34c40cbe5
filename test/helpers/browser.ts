/**
 * Debian's Chromium, headless, driven by playwright-core (no browser download): the browser
 * tests' one way to start it. `.ci/run` installs the package.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why a browser test cannot run here, or false (for `test(..., { skip })`). */
export const noChromium: string | false = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
