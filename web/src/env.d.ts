/** The year of the build (web/vite.config.ts): the footer's until the page is hydrated. */
declare const __BUILD_YEAR__: number;
