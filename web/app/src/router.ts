// A small history-API router: paths are the app's routes (the server answers the page for them).
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to); else history.pushState(null, '', to);
  listeners.forEach((f) => f());
  scrollTo(0, 0);
}
addEventListener('popstate', () => listeners.forEach((f) => f()));

export function usePath(): string {
  const [p, setP] = useState(location.pathname + location.search);
  useEffect(() => {
    const f = () => setP(location.pathname + location.search);
    listeners.add(f);
    return () => { listeners.delete(f); };
  }, []);
  return p;
}

/** onLink makes a plain <a href> navigate in the app. */
export function onLink(e: MouseEvent): void {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || /^\/(oauth|graphql|v\d+)\b/.test(url.pathname)) return;
  // An in-page link (the skip link) is the browser's: it moves the focus to its target.
  if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
}
