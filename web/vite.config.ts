import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { precompressFile } from '../scripts/lib/precompress.ts';

/**
 * Writes .br and .gz beside every text asset at build time (scripts/lib/precompress.ts). Not for
 * the server-side build the prerender runs (scripts/build.ts): that bundle is never served.
 */
function precompress(): Plugin {
  let outDir = '';
  let ssr = false;
  return {
    name: 'legend-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      ssr = Boolean(config.build.ssr);
    },
    async closeBundle() {
      if (ssr) return;
      const files = (await readdir(outDir, { recursive: true })) as string[];
      await Promise.all(files.map((file) => precompressFile(path.join(outDir, file))));
    },
  };
}

// A build is always the production bundle: NODE_ENV=development left in a shell would
// otherwise make Vite and React ship their development builds (about twice the size).
if (process.argv.includes('build')) process.env.NODE_ENV = 'production';

// The SPA builds to web/dist, which the web process serves (hashed files under /assets).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
  resolve: {
    alias: [
      {
        find: /^use-sync-external-store\/shim(\/index\.js)?$/,
        replacement: path.join(import.meta.dirname, 'src/syncExternalStore.ts'),
      },
    ],
  },
  // The footer's year as prerendered pages show it until hydrated; scripts/build.ts passes one
  // value to both of its builds (the client's and the prerender's).
  define: { __BUILD_YEAR__: JSON.stringify(new Date().getFullYear()) },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Written for debugging a release, but not referenced from the bundles; the web process
    // serves them only with SERVE_SOURCE_MAPS=true.
    sourcemap: 'hidden',
    target: 'es2022',
    reportCompressedSize: false,
    modulePreload: false,
    manifest: true,
  },
  server: {
    proxy: { '/api': 'http://localhost:3000', '/sandbox': 'http://localhost:3000' },
  },
});
