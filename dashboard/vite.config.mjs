// Builds the dashboard into dist/dashboard, served by the API at /dashboard (see src/http/static-site.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/dashboard/',
  publicDir: 'public',
  logLevel: 'warn',
  // Preact's automatic JSX runtime through Vite's own (oxc) transform: no Babel, no plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // Nothing inlined as data: URLs, so the Content-Security-Policy needs no exception for them.
    assetsInlineLimit: 0,
    sourcemap: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    // `npx vite --config dashboard/vite.config.mjs` during development, against a running `npm start`.
    proxy: { '/auth': 'http://127.0.0.1:3000' },
  },
});
