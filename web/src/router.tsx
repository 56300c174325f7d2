// A small history router: pages are addressed by path and query so every view can be shared.
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export const BASE = '/ui';

const listeners = new Set<() => void>();
function notify(): void {
  for (const listener of listeners) listener();
}
window.addEventListener('popstate', notify);

/** Go to a path under /ui; `replace` keeps the history entry (for keyboard moves and redirects). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : BASE + to;
  if (url === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

export interface Location {
  path: string;
  params: URLSearchParams;
}

function current(): Location {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, params: new URLSearchParams(location.search) };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const listener = () => setLoc(current());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return loc;
}

/** Replace some query parameters of the current page, dropping empty ones. */
export function withParams(params: URLSearchParams, changes: Record<string, string | null | undefined>): string {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === '') next.delete(key);
    else next.set(key, value);
  }
  const text = next.toString();
  return text === '' ? '' : '?' + text;
}

export function Link({ to, replace, ...rest }: { to: string; replace?: boolean } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const href = to.startsWith(BASE) ? to : BASE + to;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href, replace ? { replace } : {});
  };
  return <a {...rest} href={href} onClick={onClick} />;
}
