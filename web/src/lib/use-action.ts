import { useCallback, useState } from 'react';

export interface Action {
  /** True while the action runs: its button stays disabled so that a second click sends nothing. */
  busy: boolean;
  /** What the last run threw, for ErrorMessage; cleared when the next run starts. */
  error: unknown;
  setError: (error: unknown) => void;
  run: (work: () => Promise<void>) => Promise<void>;
}

/** The state every form and confirmation of the interface keeps around its one request. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
