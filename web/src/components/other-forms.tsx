// When an e-mail or phone number finds nothing as typed: the exact forms tried, and what each found.
import { useEffect, useState } from 'react';
import { query, request, type JourneySummary, type Page } from '../api.ts';
import { otherForms } from '../lib/identifier-forms.ts';
import { Link } from '../router.tsx';
import { UserText } from './user-text.tsx';

export function OtherForms({ projectId, q }: { projectId: string; q: string }) {
  const forms = otherForms(q);
  const [found, setFound] = useState<Record<string, number>>({});
  useEffect(() => {
    setFound({});
    for (const form of otherForms(q)) {
      request<Page<JourneySummary>>('/v1/search' + query({ q: form, limit: 10 }), { projectId }).then(
        (page) => setFound((known) => ({ ...known, [form]: page.items.length })),
        () => undefined,
      );
    }
  }, [projectId, q]);
  if (forms.length === 0) return null;
  return (
    <section className="other-forms" aria-labelledby="other-forms-heading">
      <h2 id="other-forms-heading">No journey for this exact value</h2>
      <p>Identifiers are matched exactly, in the case and format they were stored in. These forms were tried:</p>
      <ul>
        {forms.map((form) => (
          <li key={form}>
            <Link to={`/projects/${projectId}/search` + query({ q: form })}>
              <code>
                <UserText text={form} />
              </code>
            </Link>
            {': '}
            {found[form] === undefined ? 'searching…' : found[form] === 0 ? 'no journey' : found[form] === 1 ? '1 journey' : `${found[form]} journeys`}
          </li>
        ))}
      </ul>
    </section>
  );
}
