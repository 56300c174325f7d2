// An alias value as the API shows it: a value that is not displayable comes masked ("some…com",
// or "…" alone when short), which must not read like text cut for width.
import { UserText } from './user-text.tsx';

export function AliasValue({ alias }: { alias: { displayValue: string | null; displayable: boolean } }) {
  if (alias.displayValue === null) return <span className="muted">(unreadable)</span>;
  if (alias.displayable) return <UserText text={alias.displayValue} />;
  if (alias.displayValue === '\u2026') return <span className="masked">masked</span>;
  return (
    <>
      <UserText text={alias.displayValue} /> <span className="masked">masked</span>
    </>
  );
}
