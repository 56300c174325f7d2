// A secret shown once (an API key, a personal token, an alert rule's signing secret): a field to
// select it, a copy button and Done. It lives in the caller's state only: a reload cannot show it.
import { useState, type ReactNode } from 'react';

export function SecretOnce({ id, heading, warning, label, value, copyLabel, onDone }: { id: string; heading: ReactNode; warning: ReactNode; label: string; value: string; copyLabel: string; onDone: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'unavailable'>('idle');
  const copySecret = async () => {
    // The Clipboard API exists only in secure contexts (https or localhost) and may be refused.
    if (!navigator.clipboard?.writeText) {
      setCopy('unavailable');
      return;
    }
    try {
      await navigator.clipboard.writeText(value);
      setCopy('copied');
    } catch {
      setCopy('unavailable');
    }
  };
  return (
    <section className="card new-secret" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>{heading}</h3>
      <p className="warning">{warning}</p>
      <label htmlFor={`${id}-value`}>{label}</label>
      <input id={`${id}-value`} className="secret" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      <div className="secret-actions">
        <button type="button" onClick={() => void copySecret()}>
          {copyLabel}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="muted">
        {copy === 'copied' ? 'Copied to the clipboard.' : copy === 'unavailable' ? 'This browser cannot copy here: select it above and copy it by hand.' : ''}
      </p>
    </section>
  );
}
