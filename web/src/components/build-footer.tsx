// The page footer: which jtrace answers, as /ready reports it (version, and commit when built with one).
import { useEffect, useState } from 'react';

interface Build {
  version: string;
  commit?: string;
}

export function BuildFooter() {
  const [build, setBuild] = useState<Build | null>(null);
  useEffect(() => {
    // /ready answers its build information with 503 too (database unavailable): read it either way.
    fetch('/ready', { headers: { accept: 'application/json' } })
      .then((response) => response.json() as Promise<Build>)
      .then((body) => (typeof body.version === 'string' ? setBuild(body) : undefined))
      .catch(() => undefined);
  }, []);
  return (
    <footer className="build-footer">
      {build ? (
        <>
          jtrace {build.version}
          {build.commit ? <> · build {build.commit}</> : null}
        </>
      ) : (
        'jtrace'
      )}
    </footer>
  );
}
