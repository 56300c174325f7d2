import { parseArgs as utilParseArgs, type ParseArgsConfig } from 'node:util';

/**
 * Argument rules of the operator commands (interface spec, Operator commands): `--help`/`-h`
 * never runs a command, a value beginning with a dash goes after `--`, an argument holding a
 * non-ASCII dash before `--` is refused (a pasted "—json" must not become a positional), and
 * extra arguments are refused.
 */
export class UsageError extends Error {}

export interface OptionSpec {
  /** Takes a value; otherwise a flag. */
  value?: boolean;
  /** May be given more than once (values collected in order). */
  repeat?: boolean;
}

export interface CommandSpec {
  /** Positional names; a trailing `...` takes the rest joined by one space. */
  positionals: string[];
  options?: Record<string, OptionSpec>;
}

export interface ParsedArgs {
  help: boolean;
  positionals: Record<string, string>;
  flags: Set<string>;
  values: Map<string, string[]>;
}

// Hyphen look-alikes: U+2010–U+2015, minus sign, small and full-width hyphen-minus.
const NON_ASCII_DASH = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/;

export function parseArgs(argv: readonly string[], spec: CommandSpec): ParsedArgs {
  // The split at `--` stays by hand: `--help` and the non-ASCII dash rule apply only before it,
  // and node:util would take a `--` right after a value option as that option's value.
  const terminator = argv.indexOf('--');
  const before = terminator === -1 ? argv : argv.slice(0, terminator);
  const after = terminator === -1 ? [] : argv.slice(terminator + 1);
  const parsed: ParsedArgs = { help: false, positionals: {}, flags: new Set(), values: new Map() };
  if (before.includes('--help') || before.includes('-h')) {
    parsed.help = true;
    return parsed;
  }
  for (const arg of before) {
    if (NON_ASCII_DASH.test(arg)) {
      throw new UsageError(`the argument ${JSON.stringify(arg)} holds a non-ASCII dash; type options with "-" and put values that begin with a dash after --`);
    }
  }
  const options = spec.options ?? {};
  const rest: string[] = [];
  // Non-strict tokens: node:util splits `--name=value`, takes the next argument as a value and
  // keeps the order, while the spec's own messages and the refusal of a repeated single option
  // (which node:util would silently overwrite) stay here.
  const { tokens } = utilParseArgs({ args: [...before], options: utilOptions(options), strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional') {
      rest.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const option = options[token.rawName];
    if (!option) {
      // A short group such as `-weird` is named as typed, not by its first letter.
      const raw = before[token.index]!;
      const name = raw.startsWith('--') && raw.includes('=') ? raw.slice(0, raw.indexOf('=')) : raw;
      throw new UsageError(`unknown option ${name}; a value that begins with a dash goes after --`);
    }
    const name = token.rawName;
    if (!option.value) {
      if (token.inlineValue) throw new UsageError(`${name} takes no value`);
      parsed.flags.add(name);
      continue;
    }
    if (token.value === undefined) throw new UsageError(`${name} needs a value`);
    const list = parsed.values.get(name) ?? [];
    if (list.length > 0 && !option.repeat) throw new UsageError(`${name} is given more than once`);
    list.push(token.value);
    parsed.values.set(name, list);
  }
  rest.push(...after);
  assignPositionals(rest, spec.positionals, parsed);
  return parsed;
}

/** The spec's `--name` keys as node:util option declarations. */
function utilOptions(options: Record<string, OptionSpec>): ParseArgsConfig['options'] {
  return Object.fromEntries(
    Object.entries(options)
      .filter(([name]) => name.startsWith('--'))
      .map(([name, option]) => [name.slice(2), { type: option.value ? 'string' : 'boolean', multiple: option.repeat ?? false }] as const),
  );
}

function assignPositionals(rest: string[], names: string[], parsed: ParsedArgs): void {
  const variadic = names.at(-1)?.endsWith('...') ?? false;
  const fixed = variadic ? names.length - 1 : names.length;
  if (rest.length < names.length) {
    throw new UsageError(`missing argument <${names[rest.length]}>`);
  }
  if (!variadic && rest.length > fixed) {
    throw new UsageError(`unexpected extra argument ${JSON.stringify(rest[fixed])}`);
  }
  names.forEach((name, index) => {
    if (variadic && index === names.length - 1) {
      parsed.positionals[name.slice(0, -3)] = rest.slice(index).join(' ');
    } else {
      parsed.positionals[name] = rest[index]!;
    }
  });
}

export function single(parsed: ParsedArgs, name: string): string | undefined {
  return parsed.values.get(name)?.[0];
}
