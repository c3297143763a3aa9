// Herdbook's service worker: keeps the app shell (the page and its hashed assets) so the app
// opens offline. Data is not cached here: the app keeps the last synced register in IndexedDB
// and queues offline writes itself (docs/web.md). Served with no-cache by the Go server.
const SHELL = 'herdbook-shell-v2';
// The app's icon and manifest (also the sign-in pages' favicon): kept, so that the icon shows
// offline too; served from the cache and refreshed from the network behind it.
const ICONS = ['/icon.svg', '/manifest.webmanifest'];

async function cacheShell() {
  const cache = await caches.open(SHELL);
  const page = await fetch('/', { headers: { Accept: 'text/html' }, cache: 'no-cache' });
  if (!page.ok) return;
  const html = await page.clone().text();
  await cache.put('/', page);
  const assets = [...html.matchAll(/\/assets\/[A-Za-z0-9._-]+/g)].map((m) => m[0]);
  await cache.addAll([...new Set(assets), ...ICONS]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(cacheShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('herdbook-shell-') && k !== SHELL).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/assets/')) {
    // Hashed, immutable: the cache first, the network once.
    event.respondWith(
      caches.match(req).then((hit) => hit || fetch(req).then((res) => {
        if (res.ok) { const copy = res.clone(); caches.open(SHELL).then((c) => c.put(req, copy)); }
        return res;
      })),
    );
    return;
  }
  if (ICONS.includes(url.pathname)) {
    event.respondWith(
      caches.open(SHELL).then((c) => c.match(url.pathname).then((hit) => {
        const fresh = fetch(req).then((res) => { if (res.ok) void c.put(url.pathname, res.clone()); return res; });
        if (hit) { fresh.catch(() => undefined); return hit; }
        return fresh;
      })),
    );
    return;
  }
  if (req.mode === 'navigate' && !/^\/(oauth|graphql|v\d+|\.well-known|explorer|metrics|healthz|readyz)(\/|$)/.test(url.pathname)) {
    // The page: the network first (it is no-cache), the kept shell when offline.
    event.respondWith(
      fetch(req).then((res) => {
        if (res.ok) { const copy = res.clone(); caches.open(SHELL).then((c) => c.put('/', copy)); }
        return res;
      }).catch(() => caches.match('/').then((hit) => hit || Response.error())),
    );
  }
});
