import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from './context';

/**
 * Every dashboard response carries this policy: scripts, styles and everything else only from the
 * service itself, no inline script or style, no framing, no plugins, forms and fetches to this origin.
 */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** On every dashboard response: its pages and assets here, and its JSON under /auth (app.ts). */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
  /** Built assets carry a content hash in their name, so a browser may keep them forever. */
  immutable: boolean;
}

/** Where `npm run build` writes the dashboard (dist/dashboard), from this compiled file in dist/src/dashboard. */
const DEFAULT_DASHBOARD_DIR = path.resolve(__dirname, '..', '..', 'dashboard');

function readTree(root: string, dir = root, files = new Map<string, StaticFile>()): Map<string, StaticFile> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      readTree(root, full, files);
      continue;
    }
    const relative = path.relative(root, full).split(path.sep).join('/');
    if (relative.startsWith('.')) continue;
    const body = readFileSync(full);
    files.set(relative, {
      body,
      type: TYPES[path.extname(name)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      immutable: relative.startsWith('assets/'),
    });
  }
  return files;
}

/**
 * The built dashboard, held in memory (a few hundred kilobytes) and answered from there: only files
 * the build wrote can ever be served, so no request path reaches the file system. Any other path
 * under /dashboard is a page of the single-page app and gets index.html; the app itself shows the
 * sign-in page when there is no session.
 */
export function createDashboardSite(dir: string = DEFAULT_DASHBOARD_DIR) {
  let files: Map<string, StaticFile> | null = null;
  const load = (): Map<string, StaticFile> | null => {
    if (!files && existsSync(path.join(dir, 'index.html'))) files = readTree(dir);
    return files;
  };

  return {
    /** Answers GET/HEAD /dashboard and everything under it. */
    serve(ctx: AppContext, requestPath: string): void {
      ctx.set({ ...DASHBOARD_SECURITY_HEADERS, 'Cache-Control': 'no-store' });
      const site = load();
      if (!site) {
        ctx.status = 503;
        ctx.body = { error: 'the dashboard is not built: run npm run build', code: 'dashboard_not_built', requestId: ctx.state.requestId };
        return;
      }
      const asked = requestPath.replace(/^\/+/, '');
      const file = site.get(asked);
      if (!file && asked.startsWith('assets/')) {
        ctx.status = 404;
        ctx.body = { error: 'asset not found', code: 'not_found', requestId: ctx.state.requestId };
        return;
      }
      const chosen = file ?? site.get('index.html')!;
      // Only the hashed assets may be kept; the HTML (and every error above) is never stored.
      if (chosen.immutable) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('ETag', chosen.etag);
      ctx.type = chosen.type;
      if (ctx.get('if-none-match') === chosen.etag) {
        ctx.status = 304;
        return;
      }
      ctx.status = 200;
      ctx.body = chosen.body;
    },
  };
}

export type DashboardSite = ReturnType<typeof createDashboardSite>;
