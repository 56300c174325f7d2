// Operator redaction rules (event protocol 5.5): parsed once per environment into a compiled form
// that the redaction walk can follow level by level.
import { foldName } from './secret-names.ts';

/** One level of a path rule. */
export type RuleStep =
  /** The key whose folded form equals `folded`, in an object. */
  | { readonly kind: 'key'; readonly folded: string }
  /** Any key of an object; never an array element (5.5, decision 16). */
  | { readonly kind: 'any-key' }
  /** Every element of an array. */
  | { readonly kind: 'elements' };

export type CompiledRule =
  /** A rule such as `customer.ssn`, `*.password`, `items[*].cardNumber` or `[*].token`. */
  | { readonly kind: 'path'; readonly source: string; readonly steps: readonly RuleStep[] }
  /** `**.name`: the key at any depth; also a secret name for header shapes and lines (5.6). */
  | { readonly kind: 'any-depth'; readonly source: string; readonly folded: string };

export interface CompiledRules {
  readonly rules: CompiledRule[];
  /** Rules that were ignored, as given, so that the caller can log them with their environment. */
  readonly malformed: string[];
}

const ANY_DEPTH_PREFIX = '**.';
const ELEMENTS_SUFFIX = '[*]';

/**
 * A literal name segment. `.` cannot occur (it separates segments); `*`, `[` and `]` belong to
 * the grammar, so a name holding them is a typo rather than a key. Control characters and
 * surrounding blanks are refused too: such a rule is almost surely a copy-paste slip, and a rule
 * that silently protects nothing is worse than one the CLI refuses.
 */
function isValidName(name: string): boolean {
  if (name.length === 0) return false;
  if (/[*[\]\u0000-\u001f\u007f]/.test(name)) return false;
  return name.trim() === name;
}

/** Steps for one segment of a path rule, or null when the segment is malformed. */
function parseSegment(segment: string, isFirst: boolean): RuleStep[] | null {
  if (segment === ELEMENTS_SUFFIX) {
    // A bare `[*]` addresses a root array, so it only makes sense as the first segment.
    return isFirst ? [{ kind: 'elements' }] : null;
  }
  const hasElements = segment.endsWith(ELEMENTS_SUFFIX);
  const head = hasElements ? segment.slice(0, -ELEMENTS_SUFFIX.length) : segment;
  let first: RuleStep;
  if (head === '*') first = { kind: 'any-key' };
  else if (isValidName(head)) first = { kind: 'key', folded: foldName(head) };
  else return null;
  return hasElements ? [first, { kind: 'elements' }] : [first];
}

/**
 * Parses one operator rule. Returns null when the rule is malformed: empty, an empty segment
 * (`a..b`, `.a`), `**` anywhere but as the whole-rule prefix of `**.name`, `[*]` after the first
 * segment, or a name holding grammar characters.
 */
export function parseRedactionRule(rule: string): CompiledRule | null {
  if (typeof rule !== 'string' || rule.length === 0) return null;
  if (rule.startsWith(ANY_DEPTH_PREFIX)) {
    const name = rule.slice(ANY_DEPTH_PREFIX.length);
    // `**.name` is the whole rule: a plain name, no wildcard, no further segments.
    if (name.includes('.') || !isValidName(name)) return null;
    return { kind: 'any-depth', source: rule, folded: foldName(name) };
  }
  const steps: RuleStep[] = [];
  const segments = rule.split('.');
  for (let i = 0; i < segments.length; i += 1) {
    const parsed = parseSegment(segments[i] ?? '', i === 0);
    if (parsed === null) return null;
    steps.push(...parsed);
  }
  return { kind: 'path', source: rule, steps };
}

/** For tools that write settings: they must refuse a malformed rule (5.5). */
export function isValidRedactionRule(rule: string): boolean {
  return parseRedactionRule(rule) !== null;
}

/** Compiles an environment's rules; malformed ones are ignored (they protect nothing) and listed. */
export function compileRules(rules: readonly string[]): CompiledRules {
  const compiled: CompiledRule[] = [];
  const malformed: string[] = [];
  for (const rule of rules) {
    const parsed = parseRedactionRule(rule);
    if (parsed === null) malformed.push(String(rule));
    else compiled.push(parsed);
  }
  return { rules: compiled, malformed };
}
