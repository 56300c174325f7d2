// One mapping from the API's validation details ({ path, message }) to what a form says: the
// field's label as the form shows it and the problem in words. Every form uses it, for the
// server's answer and for its own checks before sending.

export interface FieldProblem {
  /** The field's label, as the form shows it ("Deadline", "Redaction rules, line 2"). */
  field: string;
  /** The problem in words, starting lower-case: "must be more than 0". */
  message: string;
  /** The API path, to mark the field (aria-invalid). */
  path: string;
}

/**
 * Labels by API path. A key may end in `.*` for a list whose items are lines of one field:
 * `redactionPaths.*` gives "Redaction rules, line 3" for `redactionPaths.2`.
 */
export type FieldLabels = Record<string, string>;

/** The label of a path: exact, a list item as a line, or its nearest labelled parent. */
export function labelOf(path: string, labels: FieldLabels): string {
  if (labels[path] !== undefined) return labels[path];
  const segments = path.split('.');
  for (let end = segments.length - 1; end > 0; end--) {
    const parent = segments.slice(0, end).join('.');
    const index = segments[end]!;
    if (/^\d+$/.test(index) && labels[`${parent}.*`] !== undefined) return `${labels[`${parent}.*`]}, line ${Number(index) + 1}`;
    if (labels[parent] !== undefined) return labels[parent];
  }
  return path === '' ? 'The form' : path;
}

/** A validation message of the server (zod's wording or ours) in plain words. */
export function inWords(message: string): string {
  const text = message.trim();
  let m: RegExpExecArray | null;
  if ((m = /^Too small: expected (?:number|int|bigint) to be >(=?)(-?\d+(?:\.\d+)?)/.exec(text))) {
    return m[1] === '=' ? `must be at least ${m[2]}` : m[2] === '0' ? 'must be more than 0' : `must be more than ${m[2]}`;
  }
  if ((m = /^Too big: expected (?:number|int|bigint) to be <(=?)(-?\d+(?:\.\d+)?)/.exec(text))) return m[1] === '=' ? `must be at most ${m[2]}` : `must be less than ${m[2]}`;
  if ((m = /^Too small: expected string to have >=?(\d+) characters?/.exec(text))) return m[1] === '1' ? 'must not be empty' : `must have at least ${m[1]} characters`;
  if ((m = /^Too big: expected string to have <=?(\d+) characters?/.exec(text))) return `must have at most ${m[1]} characters`;
  if ((m = /^Too big: expected array to have <=?(\d+) items?/.exec(text))) return `must have at most ${m[1]} lines`;
  if (/^Invalid input: expected \w+, received undefined/.test(text)) return 'is required';
  if (/^Invalid input: expected int,/.test(text)) return 'must be a whole number';
  if (/^Invalid input: expected number,/.test(text)) return 'must be a number';
  if (/^Invalid input: expected string, received undefined/.test(text)) return 'is required';
  if (/^Invalid input: expected string/.test(text)) return 'must be text';
  if (/^Invalid option: expected one of/.test(text)) return 'is not one of the choices';
  if (/^Invalid (ISO )?datetime/i.test(text)) return 'is not a date and time';
  if (/^Invalid URL/i.test(text)) return 'is not a web address';
  // Our own refinements say what is wrong already; a section reference is for the API's readers.
  return text.replace(/\s*\((?:event protocol|interface spec|docs\/)[^)]*\)\.?$/, '').replace(/\.$/, '');
}

/** The problems of a refused request, worded for the form; empty when it carries no details. */
export function problemsOf(error: unknown, labels: FieldLabels): FieldProblem[] {
  const details = (error as { details?: unknown } | null)?.details;
  if (!Array.isArray(details)) return [];
  return details
    .filter((d): d is { path: string; message: string } => typeof d?.path === 'string' && typeof d?.message === 'string')
    .map((d) => ({ path: d.path, field: labelOf(d.path, labels), message: inWords(d.message) }));
}

/** One problem found by the form itself before sending. */
export function problem(path: string, labels: FieldLabels, message: string): FieldProblem {
  return { path, field: labelOf(path, labels), message };
}
