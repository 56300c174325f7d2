// The selected event as a small store each drawn item subscribes to: moving the selection
// re-renders the two items whose answer changed, not the 10,000 around them.
import { useSyncExternalStore } from 'react';

export interface Selection {
  get(): string | null;
  set(id: string | null): void;
  subscribe(listener: () => void): () => void;
}

export function createSelection(initial: string | null): Selection {
  let current = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => current,
    set(id) {
      if (id === current) return;
      current = id;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Whether `id` is the selected one; the caller re-renders only when that answer changes. */
export function useSelected(selection: Selection, id: string): boolean {
  return useSyncExternalStore(selection.subscribe, () => selection.get() === id);
}
