/** Debian's chromium (npx playwright install cannot download browsers here; .ci/run installs the package). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
