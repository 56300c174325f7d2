// Every value that comes from a user (ids, labels, aliases, services, steps, payload keys and
// values, error texts) is shown through UserText: isolated in <bdi> so it cannot reorder the
// interface's text around it, with its direction controls shown as marked code points.
import { useState } from 'react';
import { splitBidiControls } from '../lib/bidi.ts';

export function UserText({ text, limit, className }: {
  text: string;
  /** Longer values show their first `limit` characters and a button that shows the rest. */
  limit?: number;
  className?: string;
}) {
  const [whole, setWhole] = useState(false);
  const cut = limit !== undefined && !whole && text.length > limit;
  // Never cut between the two halves of a surrogate pair.
  const end = cut && /[\uD800-\uDBFF]/.test(text[limit - 1]!) ? limit - 1 : limit;
  const shown = cut ? text.slice(0, end) : text;
  return (
    <>
      <bdi className={className ? `user-text ${className}` : 'user-text'}>
        {splitBidiControls(shown).map((part, index) =>
          'control' in part ? (
            <span key={index} className="bidi-control">
              {part.control}
            </span>
          ) : (
            part.text
          ),
        )}
        {cut ? '…' : null}
      </bdi>
      {cut ? (
        <button type="button" className="link-button show-all" onClick={() => setWhole(true)}>
          show all {text.length.toLocaleString('en')} characters
        </button>
      ) : null}
    </>
  );
}
