import { useEffect, useState, type FormEvent } from 'react';
import { navigate } from '../router.tsx';

/** One box resolving any identifier: entity id, alias, journey, trace, span, message, correlation. */
export function HeaderSearch({ projectId, initial }: { projectId: string; initial: string }) {
  const [value, setValue] = useState(initial);
  useEffect(() => setValue(initial), [initial]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const q = value.trim();
    if (q !== '') navigate(`/projects/${projectId}/search?q=${encodeURIComponent(q)}`);
  };
  return (
    <form role="search" className="header-search" onSubmit={submit}>
      <label htmlFor="find-record" className="visually-hidden">
        Find a record
      </label>
      <input
        id="find-record"
        type="search"
        placeholder="Find a record: entity id, alias, journey, trace, message id…"
        value={value}
        onChange={(event) => setValue(event.target.value)}
      />
      <button type="submit">Find</button>
    </form>
  );
}
