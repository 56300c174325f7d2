import { useEffect } from 'react';
import type { EventRow } from '../api.ts';

function typingInto(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** j / ArrowDown: next event; k / ArrowUp: previous; never while typing or with a modifier. */
export function useKeyboardMoves(order: EventRow[], selectedId: string | null, select: (id: string) => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typingInto(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      const step = event.key === 'j' || event.key === 'ArrowDown' ? 1 : event.key === 'k' || event.key === 'ArrowUp' ? -1 : 0;
      if (step === 0 || order.length === 0) return;
      event.preventDefault();
      const index = order.findIndex((row) => row.id === selectedId);
      const next = index === -1 ? (step > 0 ? 0 : order.length - 1) : Math.min(order.length - 1, Math.max(0, index + step));
      select(order[next]!.id);
      // Keep keyboard focus on the selected row so Tab continues from there.
      requestAnimationFrame(() => document.querySelector<HTMLElement>('.event-selected .event-button')?.focus({ preventScroll: false }));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [order, selectedId, select]);
}
