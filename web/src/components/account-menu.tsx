// Who is signed in, in the header: the person's name (or "admin token") opens a menu with their
// personal tokens and sessions (a person's only: the admin token has neither) and Sign out.
import { useEffect, useRef, useState } from 'react';
import { useSessionInfo } from '../roles.tsx';
import { Link } from '../router.tsx';
import { UserText } from './user-text.tsx';

export function AccountMenu({ onSignOut }: { onSignOut: () => void }) {
  const session = useSessionInfo();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const person = session?.user ?? null;
  const label = person ? (person.name === '' ? person.email : person.name) : 'admin token';

  useEffect(() => {
    if (!open) return;
    // The first item takes the focus; Escape or a click elsewhere closes the menu.
    root.current?.querySelector<HTMLElement>('.account-items a, .account-items button')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    const onClick = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('click', onClick);
    };
  }, [open]);

  return (
    <div className="account-menu" ref={root}>
      <button ref={button} type="button" className="account-button" aria-expanded={open} aria-controls="account-items" onClick={() => setOpen(!open)}>
        <span className="visually-hidden">Signed in as </span>
        <UserText text={label} /> ▾
      </button>
      {open ? (
        <div id="account-items" className="account-items">
          {person ? (
            <>
              <p className="muted account-email">
                <UserText text={person.email} />
                {person.owner ? ' · owner' : ''}
              </p>
              <Link to="/account" onClick={() => setOpen(false)}>
                Personal tokens and sessions
              </Link>
            </>
          ) : (
            <p className="muted account-email">The instance's break-glass credential: it has no tokens or sessions of its own.</p>
          )}
          <button type="button" className="link-button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      ) : null}
    </div>
  );
}
