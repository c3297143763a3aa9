// Herdbook's service worker: keeps the app shell (the page and its hashed assets) so the app
// opens offline. Data is not cached here: the app keeps the last synced register in IndexedDB
// and queues offline writes itself (docs/web.md). Served with no-cache by the Go server.
const SHELL = 'herdbook-shell-v3';
// The app's icon and manifest (also the sign-in pages' favicon): kept, so that the icon shows
// offline too; served from the cache and refreshed from the network behind it.
const ICONS = ['/icon.svg', '/manifest.webmanifest'];

// keepShell keeps the page and every file it needs: its assets, the icons, and the screens
// loaded on demand with the chunks they share (a script names them as "./Name-hash.js", an
// import, or "assets/Name-hash.js", Vite's list of what to preload with a screen). What is
// kept already is not fetched again, so it is cheap to call more than once: at install, at
// activation, and when a page sends what it loaded (a put lost under a busy disk, a page
// loaded before this worker controlled it, or a newer page, are made good then). It fails
// when the page or one of its own assets cannot be had: an install that fails is retried by
// the app (main.tsx), where one that succeeded with half a shell would leave the app unable
// to open offline. An install reads the page afresh (fresh); the others take the kept one.
async function keepShell(more = [], fresh = false) {
  const cache = await caches.open(SHELL);
  let page = fresh ? undefined : await cache.match('/');
  if (!page) {
    const res = await fetch('/', { headers: { Accept: 'text/html' }, cache: 'no-cache' });
    if (!res.ok) throw new Error(`the app's page answered HTTP ${res.status}`);
    await cache.put('/', res.clone());
    page = res;
  }
  const own = [...new Set([...(await page.text()).matchAll(/\/assets\/[A-Za-z0-9._-]+/g)].map((m) => m[0]))];
  const missing = async (urls) => (await Promise.all(urls.map(async (u) => ((await cache.match(u)) ? null : u)))).filter(Boolean);
  // One that cannot be fetched now is fetched at its first visit: the shell stays kept.
  const add = (u) => cache.add(u).then(() => true, () => false);
  const absent = await missing([...own, ...ICONS]);
  await cache.addAll(absent);
  const extra = await missing(more.filter((u) => /^\/assets\/[A-Za-z0-9._-]+$/.test(u) && !own.includes(u)));
  const added = [...absent];
  for (const u of extra) if (await add(u)) added.push(u);
  // What a newly kept script names, followed (what was kept before was followed then).
  const seen = new Set([...own, ...more]);
  const todo = added.filter((u) => u.endsWith('.js'));
  while (todo.length) {
    const hit = await cache.match(todo.pop());
    if (!hit) continue;
    for (const m of (await hit.text()).matchAll(/"(?:\.\/|assets\/)([A-Za-z0-9._-]+\.(?:js|css))"/g)) {
      const u = '/assets/' + m[1];
      if (seen.has(u)) continue;
      seen.add(u);
      if (!(await cache.match(u)) && (await add(u)) && u.endsWith('.js')) todo.push(u);
    }
  }
}

// noteMiss keeps the last few files of the shell that were neither kept nor to be had from the
// network (offline), with when and why, in a cache of their own: what a support person or a
// test reads when the app did not open offline ('herdbook-sw-misses'; a sign-out drops it).
async function noteMiss(path, err) {
  try {
    const c = await caches.open('herdbook-sw-misses');
    const old = await c.keys();
    for (const r of old.slice(0, Math.max(0, old.length - 19))) await c.delete(r);
    await c.put(`/missed/${Date.now()}${path}?why=${encodeURIComponent(String(err))}`, new Response(''));
  } catch { /* a note only */ }
}

self.addEventListener('install', (event) => {
  event.waitUntil(keepShell([], true).then(() => self.skipWaiting()));
});

// A page that this worker controls sends the files it loaded ({keep: [url, …]}): kept if
// they are not already. A page this worker did not claim at activation asks for it
// ({claim: true}, main.tsx).
self.addEventListener('message', (event) => {
  const keep = event.data && Array.isArray(event.data.keep) ? event.data.keep.filter((u) => typeof u === 'string') : null;
  if (keep) event.waitUntil(keepShell(keep).catch(() => undefined));
  if (event.data && event.data.claim === true) event.waitUntil(self.clients.claim());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('herdbook-shell-') && k !== SHELL).map((k) => caches.delete(k))))
      // What the install kept is checked once more (and made good) before this worker
      // controls a page; offline there is nothing to fetch, and it controls them anyway.
      .then(() => keepShell().catch(() => undefined))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/assets/')) {
    // Hashed, immutable: the cache first, the network once. The kept copy is matched by its
    // address alone: the server's Vary (Origin, Accept-Encoding) says nothing a file of
    // the shell differs by.
    event.respondWith(
      caches.match(url.pathname, { ignoreVary: true, ignoreSearch: true }).then((hit) => hit || fetch(req).then((res) => {
        if (res.ok) { const copy = res.clone(); caches.open(SHELL).then((c) => c.put(url.pathname, copy)); }
        return res;
      }, (err) => { noteMiss(url.pathname, err); throw err; })),
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
