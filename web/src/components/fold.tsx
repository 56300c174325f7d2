// A section that is open on a wide screen and folded on a phone, where it would push the list
// below the first screen. Growing the window opens it; the person may fold it again.
import { useEffect, useState, type ReactNode } from 'react';

/** The width below which the interface lays out for a phone (styles.css uses the same). */
const WIDE = '(min-width: 701px)';

function useWide(): boolean {
  const query = typeof window === 'undefined' ? null : window.matchMedia(WIDE);
  const [wide, setWide] = useState(query?.matches ?? true);
  useEffect(() => {
    if (!query) return;
    const changed = () => setWide(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, [query?.media]);
  return wide;
}

export function Fold({ summary, className, children }: { summary: ReactNode; className: string; children: ReactNode }) {
  const wide = useWide();
  const [open, setOpen] = useState(wide);
  useEffect(() => {
    if (wide) setOpen(true);
  }, [wide]);
  return (
    <details className={`fold ${className}`} open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{summary}</summary>
      {children}
    </details>
  );
}
