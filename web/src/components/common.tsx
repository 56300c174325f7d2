import type { ReactNode } from 'react';
import type { JourneyStatus } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { UserText } from './user-text.tsx';

export function StatusBadge({ status }: { status: JourneyStatus | string }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}

/** The options of an environment select: "Every environment" (value "") and each of the project's. */
export function EnvironmentOptions({ environments }: { environments: readonly string[] }) {
  return (
    <>
      <option value="">Every environment</option>
      {environments.map((name) => (
        <option key={name} value={name}>
          {showBidiControls(name)}
        </option>
      ))}
    </>
  );
}

/** A command to copy, shown exactly as it must be typed. */
export function Command({ children }: { children: string }) {
  return (
    <pre className="command">
      <code>{children}</code>
    </pre>
  );
}

/** An empty state that teaches: what is missing and the exact commands that fix it. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="empty" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="error-message" role="alert">
      {/* Server messages may quote a user's value. */}
      <UserText text={message} />
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** The pages of a list read by cursor: back to the first page once past it, and the next one while there is one. */
export function Pager({ onFirst, onNext }: { onFirst: (() => void) | null; onNext: (() => void) | null }) {
  return (
    <nav className="pager" aria-label="Pages">
      {onFirst ? (
        <button type="button" onClick={onFirst}>
          First page
        </button>
      ) : null}
      {onNext ? (
        <button type="button" onClick={onNext}>
          Next page
        </button>
      ) : null}
    </nav>
  );
}
