import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into web/dist and served by the API process under /ui/ (docs/web-interface.md).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Pages carry a strict CSP: no inlined assets that would need data: scripts or styles.
    assetsInlineLimit: 0,
  },
});
