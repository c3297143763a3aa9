import { render, type JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Provider } from '@urql/preact';
import './style.css';
import { completeSignIn, endedWhy, known, onAuthChange, restored, resume, sessionEnded, signIn, signedIn } from './auth';
import { client } from './client';
import { onPrefs, prefs, t, type Key } from './i18n';
import { keepFocus } from './focus';
import { flush } from './outbox';
import { navigate, onLink, usePath } from './router';
import { Animal } from './screens/Animal';
import { Births } from './screens/Births';
import { Dashboard, Farms } from './screens/Farms';
import { Outbox, SignOut } from './screens/Outbox';
import { Register } from './screens/Register';
import { Settings } from './screens/Settings';
import { Calving, Move, Treat, Weigh } from './screens/Forms';
import { Audit, FarmSettings, Members } from './screens/Farm';
import { Medicines, Tasks } from './screens/Tasks';
import { Notifications } from './screens/Notifications';

// The service worker keeps the app's shell for offline use. Its install fetches the whole
// shell; when that fails (a dropped connection, a server too slow to answer), the browser
// drops the worker and would not try again until the next page load: the app asks again,
// later and later (up to a minute apart), for as long as the page is open.
function registerWorker(attempt: number) {
  const again = (why: unknown) => {
    console.warn('service worker not installed (try ' + (attempt + 1) + '):', why);
    setTimeout(() => registerWorker(attempt + 1), Math.min(60_000, 5000 * 2 ** attempt));
  };
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).then((reg) => {
    const w = reg.installing;
    w?.addEventListener('statechange', () => { if (w.state === 'redundant' && !reg.active) again('its install failed'); });
  }, again);
}
// Once a worker controls the page, it is sent the files this page loaded, which it keeps if
// it has not already (public/sw.js, keepShell): a page loaded before the worker took control,
// or a put lost by the worker's cache, still opens offline after a reload.
function keepLoaded() {
  const c = navigator.serviceWorker.controller;
  if (!c) return;
  const own = performance.getEntriesByType('resource').map((e) => new URL(e.name))
    .filter((u) => u.origin === location.origin && u.pathname.startsWith('/assets/')).map((u) => u.pathname);
  c.postMessage({ keep: own });
}
// A worker claims the pages open when it activates (public/sw.js); a page whose document was
// still being made then (the callback page of a sign-in, reached while the worker installed)
// can be left out, and stays uncontrolled with an active worker. It asks to be claimed.
function claimWhenReady() {
  void navigator.serviceWorker.ready.then((reg) => {
    if (!navigator.serviceWorker.controller) reg.active?.postMessage({ claim: true });
  });
}
if ('serviceWorker' in navigator) {
  addEventListener('load', () => { registerWorker(0); keepLoaded(); claimWhenReady(); });
  navigator.serviceWorker.addEventListener('controllerchange', keepLoaded);
}

function useOnline(): boolean {
  const [on, setOn] = useState(navigator.onLine);
  useEffect(() => {
    const f = () => setOn(navigator.onLine);
    addEventListener('online', f); addEventListener('offline', f);
    return () => { removeEventListener('online', f); removeEventListener('offline', f); };
  }, []);
  return on;
}

// Screens loaded on demand: their code is a chunk of its own, fetched at the first visit. The
// service worker keeps every chunk when it installs (public/sw.js), so a screen opened first
// while offline is there too, without this page loading them while it starts.
const breeding = () => import('./screens/Breeding');
const reports = () => import('./screens/Reports');
const registry = () => import('./screens/Registry');

function BreedingScreen({ farmID }: { farmID: string }) {
  const [m, setM] = useState<Awaited<ReturnType<typeof breeding>> | null>(null);
  const [err, setErr] = useState('');
  useEffect(() => { breeding().then(setM, (e: Error) => setErr(e.message)); }, []);
  if (err) return <p role="alert" class="alert">{t('error')}: {err}</p>;
  return m ? <m.Breeding farmID={farmID} /> : <p aria-busy="true">{t('loading')}</p>;
}

function ReportsScreen({ farmID }: { farmID: string }) {
  const [m, setM] = useState<Awaited<ReturnType<typeof reports>> | null>(null);
  const [err, setErr] = useState('');
  useEffect(() => { reports().then(setM, (e: Error) => setErr(e.message)); }, []);
  if (err) return <p role="alert" class="alert">{t('error')}: {err}</p>;
  return m ? <m.Reports farmID={farmID} /> : <p aria-busy="true">{t('loading')}</p>;
}

function RegistryScreen({ farmID }: { farmID: string }) {
  const [m, setM] = useState<Awaited<ReturnType<typeof registry>> | null>(null);
  const [err, setErr] = useState('');
  useEffect(() => { registry().then(setM, (e: Error) => setErr(e.message)); }, []);
  if (err) return <p role="alert" class="alert">{t('error')}: {err}</p>;
  return m ? <m.Registry farmID={farmID} /> : <p aria-busy="true">{t('loading')}</p>;
}

// The forms that take a farm from empty to working (a new farm, animals one by one, groups,
// medicines and purchases, birth settings, a CSV import) are one chunk, fetched when one is opened: the
// register and the animal page never load them.
const onboard = () => import('./screens/Onboard');
type OnboardModule = Awaited<ReturnType<typeof onboard>>;

function OnboardScreen({ show }: { show: (m: OnboardModule) => JSX.Element }) {
  const [m, setM] = useState<OnboardModule | null>(null);
  const [err, setErr] = useState('');
  useEffect(() => { onboard().then(setM, (e: Error) => setErr(e.message)); }, []);
  if (err) return <p role="alert" class="alert">{t('error')}: {err}</p>;
  return m ? show(m) : <p aria-busy="true">{t('loading')}</p>;
}

function Callback() {
  const [err, setErr] = useState('');
  useEffect(() => {
    completeSignIn().then((to) => { void flush(); navigate(to, true); }, (e: Error) => setErr(e.message));
  }, []);
  return err ? <p role="alert" class="alert">{err} <button type="button" onClick={() => void signIn('/')}>{t('signIn')}</button></p> : <p>{t('signingIn')}</p>;
}

function SignedOut({ offline }: { offline: boolean }) {
  return (
    <section class="card narrow" aria-labelledby="signin-title">
      <h1 id="signin-title">{t('appName')}</h1>
      <p>{t('signInLead')}</p>
      <button type="button" id="sign-in" onClick={() => void signIn()} disabled={offline}>{t('signIn')}</button>
    </section>
  );
}

function route(path: string, authed: boolean, online: boolean) {
  const [p] = path.split('?');
  const m = (re: RegExp) => p!.match(re);
  let r: RegExpMatchArray | null;
  if (p === '/callback') return <Callback />;
  if (p === '/settings') return <Settings />;
  if (p === '/outbox') return <Outbox />;
  // After sign-out the page is loaded again, so nothing of the session stays in memory.
  if (p === '/signout') return <SignOut done={() => location.replace('/')} />;
  if ((r = m(/^\/farms\/([^/]+)\/register$/))) return <Register farmID={r[1]!} />;
  if (!authed) return <SignedOut offline={!online} />;
  if (p === '/' || p === '/farms') return <Farms />;
  if (p === '/farms/new') return <OnboardScreen show={(o) => <o.NewFarm />} />;
  if ((r = m(/^\/farms\/([^/]+)$/))) return <Dashboard farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/animals\/new$/))) { const f = r[1]!; return <OnboardScreen key={p} show={(o) => <o.NewAnimal farmID={f} />} />; }
  if ((r = m(/^\/farms\/([^/]+)\/groups\/new$/))) { const f = r[1]!; return <OnboardScreen key={p} show={(o) => <o.NewGroup farmID={f} />} />; }
  if ((r = m(/^\/farms\/([^/]+)\/medicines\/new$/))) { const f = r[1]!; return <OnboardScreen key={p} show={(o) => <o.NewMedicine farmID={f} />} />; }
  if ((r = m(/^\/farms\/([^/]+)\/import$/))) { const f = r[1]!; return <OnboardScreen key={p} show={(o) => <o.Import farmID={f} />} />; }
  if ((r = m(/^\/farms\/([^/]+)\/import\/weighings$/))) { const f = r[1]!; return <OnboardScreen key={p} show={(o) => <o.WeighImport farmID={f} />} />; }
  if ((r = m(/^\/farms\/([^/]+)\/birth-settings$/))) { const f = r[1]!; return <OnboardScreen key={p} show={(o) => <o.BirthSettings farmID={f} />} />; }
  if ((r = m(/^\/farms\/([^/]+)\/animals\/([^/]+)$/))) return <Animal farmID={r[1]!} id={r[2]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/weigh$/))) return <Weigh farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/treat$/))) return <Treat farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/births$/))) return <Births farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/tasks$/))) return <Tasks farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/medicines$/))) return <Medicines farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/move$/))) return <Move farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/settings$/))) return <FarmSettings farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/members$/))) return <Members farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/audit$/))) return <Audit farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/calving$/))) return <Calving farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/notifications$/))) return <Notifications farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/breeding$/))) return <BreedingScreen farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/reports$/))) return <ReportsScreen farmID={r[1]!} />;
  if ((r = m(/^\/farms\/([^/]+)\/registry$/))) return <RegistryScreen farmID={r[1]!} />;
  return <Farms />;
}

function App() {
  const path = usePath();
  const online = useOnline();
  const [, setTick] = useState(0);
  // A session that starts or resumes sends what waits in the outbox.
  useEffect(() => onAuthChange(() => { setTick((n) => n + 1); if (signedIn()) void flush(); }), []);
  // A new language, unit or date format redraws every screen at once.
  useEffect(() => onPrefs(() => setTick((n) => n + 1)), []);
  // A session kept on the device counts even before it is renewed (offline, after a reload):
  // the screens read the kept copy and writes are queued.
  const authed = signedIn() || known();
  const farm = path.match(/^\/farms\/([^/?]+)/)?.[1];
  // On a phone the links fold behind one Menu button (the screen is for the work, not for
  // thirteen links); a new screen folds them again.
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [path]);
  // After a move to another screen the focus goes to its content (as a page load would put a
  // keyboard user at its start), unless the screen put it on a field of its own: a link of
  // the folded menu would otherwise leave it on the page's body.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    const id = requestAnimationFrame(() => {
      const main = document.getElementById('main');
      if (main && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(id);
  }, [path]);
  // The menu marks the screen shown (aria-current="page": read out by screen readers, drawn
  // bold and underlined by a bar), so a farmer sees where they are.
  const here = path.split('?')[0];
  const link = (href: string, key: Key) => <a href={href} aria-current={href === here ? 'page' : undefined}>{t(key)}</a>;
  // The menu by what a farmer does: the herd, breeding, health, the books, the farm; then the
  // user's own. Each group is named for screen readers and drawn with its name.
  const group = (name: Key, links: Array<[string, Key]>) => (
    <div class="navgroup" role="group" aria-labelledby={`ng-${name}`}>
      <span class="navhead" id={`ng-${name}`}>{t(name)}</span>
      {links.map(([href, key]) => link(href, key))}
    </div>
  );
  return (
    <div class="shell" onClick={onLink} lang={prefs.lang}>
      <a class="skip" href="#main">{t('skip')}</a>
      <header class="top">
        <a class="brand" href={farm ? `/farms/${farm}` : '/'} aria-current={here === (farm ? `/farms/${farm}` : '/') ? 'page' : undefined}>{t('appName')}</a>
        <button type="button" class="menu-toggle secondary" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>{t('menu')}</button>
        <nav id="nav" class={menu ? 'open' : undefined} aria-label={t('appName')}>
          {farm && <>
            {group('navHerd', [[`/farms/${farm}/register`, 'register'], [`/farms/${farm}/weigh`, 'weigh'], [`/farms/${farm}/move`, 'moveTo']])}
            {group('navBreeding', [[`/farms/${farm}/breeding`, 'breeding'], [`/farms/${farm}/calving`, 'calving'], [`/farms/${farm}/births`, 'births']])}
            {group('navHealth', [[`/farms/${farm}/treat`, 'treat'], [`/farms/${farm}/medicines`, 'medicines']])}
            {group('navBook', [[`/farms/${farm}/reports`, 'reports'], [`/farms/${farm}/registry`, 'registryScreen'], [`/farms/${farm}/audit`, 'audit']])}
            {group('navFarm', [[`/farms/${farm}/tasks`, 'taskBoard'], [`/farms/${farm}/notifications`, 'notifications'], [`/farms/${farm}/settings`, 'farmSettings'], [`/farms/${farm}/members`, 'members']])}
          </>}
          <div class="navgroup" role="group" aria-labelledby="ng-navYou">
            <span class="navhead" id="ng-navYou">{t('navYou')}</span>
            {link('/outbox', 'outbox')}
            {link('/settings', 'settings')}
            {authed && <button type="button" class="link" id="sign-out" onClick={() => navigate('/signout')}>{t('signOut')}</button>}
          </div>
        </nav>
      </header>
      {!online && <p class="banner" role="status" id="offline">{t('offline')}{authed ? ` ${t('offlineSession')}` : ''}</p>}
      {online && sessionEnded() && <p class="banner" role="status" id="session-ended">{t('sessionEnded')}{endedWhy && <> ({endedWhy})</>} <button type="button" onClick={() => void signIn()}>{t('signIn')}</button></p>}
      <main id="main" tabIndex={-1}>{route(path, authed, online)}</main>
    </div>
  );
}

const root = document.getElementById('app')!;
// The kept session is read back first (a few milliseconds), so that a reload, offline or not,
// draws the screen and not the sign-in card; online, it is renewed at once.
void restored.finally(() => {
  root.textContent = ''; // the static "loading" line
  render(<Provider value={client}><App /></Provider>, root);
  keepFocus(root);
  void resume().then(() => { if (signedIn()) void flush(); });
});
