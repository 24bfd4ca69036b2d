import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Writes .br and .gz beside every text asset at build time. The web process serves them
 * (koa-static picks the best the browser accepts), so no CPU is spent compressing per request
 * and the app is small on the wire with or without a compressing proxy in front.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'legend-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await readdir(outDir, { recursive: true })) as string[];
      await Promise.all(
        files
          .filter((f) => /\.(js|css|html|svg|json|txt)$/.test(f))
          .map(async (file) => {
            const full = path.join(outDir, file);
            const content = await readFile(full);
            if (content.length < 1024) return;
            await writeFile(`${full}.gz`, gzipSync(content, { level: 9 }));
            await writeFile(
              `${full}.br`,
              brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
            );
          }),
      );
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
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Written for debugging a release, but not referenced from the bundles; the web process
    // serves them only with SERVE_SOURCE_MAPS=true.
    sourcemap: 'hidden',
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': 'http://localhost:3000', '/sandbox': 'http://localhost:3000' },
  },
});
