// What a refused form says: each field at fault by its label and the problem in words (from the
// API's details or the form's own checks), or the server's message when it names no field.
import type { FieldLabels, FieldProblem } from '../lib/field-problems.ts';
import { problemsOf } from '../lib/field-problems.ts';
import { ErrorMessage } from './common.tsx';
import { UserText } from './user-text.tsx';

export function FormProblems({ error, labels, problems = [] }: { error: unknown; labels: FieldLabels; problems?: FieldProblem[] }) {
  const all = problems.length > 0 ? problems : problemsOf(error, labels);
  if (all.length === 0) return <ErrorMessage error={error} />;
  // One line per field: the same path twice (a list's rule and its length) says it once.
  const seen = new Set<string>();
  const lines = all.filter((p) => !seen.has(`${p.field}\u0000${p.message}`) && seen.add(`${p.field}\u0000${p.message}`));
  return (
    <div className="error-message form-problems" role="alert">
      {lines.length === 1 ? (
        <p>
          <UserText text={`${lines[0]!.field}: ${lines[0]!.message}.`} />
        </p>
      ) : (
        <ul>
          {lines.map((p) => (
            <li key={`${p.path} ${p.message}`}>
              <UserText text={`${p.field}: ${p.message}.`} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Whether a field is at fault, for aria-invalid. */
export function invalid(error: unknown, labels: FieldLabels, problems: FieldProblem[], path: string): true | undefined {
  const all = problems.length > 0 ? problems : problemsOf(error, labels);
  return all.some((p) => p.path === path || p.path.startsWith(`${path}.`)) ? true : undefined;
}
