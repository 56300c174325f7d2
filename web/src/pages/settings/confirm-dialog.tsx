// A modal confirmation of the Settings pages. The native <dialog> opened with showModal() moves
// focus into it (to Cancel, the safe choice), keeps it there, and closes on Escape.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ErrorMessage } from '../../components/common.tsx';
import { useAction } from '../../lib/use-action.ts';

export function ConfirmDialog({ open, title, children, action, onConfirm, onClose }: {
  open: boolean;
  title: ReactNode;
  children: ReactNode;
  /** The confirming button's text, naming what it does. */
  action: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const headingId = useId();
  const { busy, error, setError, run } = useAction();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      setError(null);
      element.showModal();
      // Focus goes to the safe choice whatever the browser's own dialog focusing does.
      cancel.current?.focus();
    } else if (!open && element.open) element.close();
  }, [open]);
  const confirm = () => {
    void run(async () => {
      await onConfirm();
      onClose();
    });
  };
  return (
    <dialog ref={dialog} aria-labelledby={headingId} className="confirm" onClose={onClose}>
      {open ? (
        <>
          <h2 id={headingId}>{title}</h2>
          {children}
          <ErrorMessage error={error} />
          <div className="dialog-actions">
            <button type="button" ref={cancel} onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void confirm()} disabled={busy}>
              {action}
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
