import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The SPA builds to web/dist, which the web process serves (hashed files under /assets).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': 'http://localhost:3000', '/sandbox': 'http://localhost:3000' },
  },
});
