// Herdbook's service worker: keeps the app shell (the page and its hashed assets) so the app
// opens offline. Data is not cached here: the app keeps the last synced register in IndexedDB
// and queues offline writes itself (docs/web.md). Served with no-cache by the Go server.
const SHELL = 'herdbook-shell-v3';
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
  // The screens loaded on demand (breeding, reports, registry, …) and the chunks they share:
  // a script names them as "./Name-hash.js" (an import) or "assets/Name-hash.js" (Vite's
  // list of what to preload with a screen). Kept now, from here, following each chunk's own
  // names, so that they open offline without the page itself loading them (which would cost
  // its main thread while it starts).
  const seen = new Set(assets);
  const todo = assets.filter((a) => a.endsWith('.js'));
  while (todo.length) {
    const hit = await cache.match(todo.pop());
    if (!hit) continue;
    for (const m of (await hit.text()).matchAll(/"(?:\.\/|assets\/)([A-Za-z0-9._-]+\.(?:js|css))"/g)) {
      const a = '/assets/' + m[1];
      if (seen.has(a)) continue;
      seen.add(a);
      // One that cannot be fetched now is fetched at its first visit: the shell stays kept.
      if (await cache.add(a).then(() => true, () => false) && a.endsWith('.js')) todo.push(a);
    }
  }
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
