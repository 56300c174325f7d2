import { describe, expect, it } from 'vitest';
import { UsageError, parseArgs, type CommandSpec } from './args.ts';

const keyCreate: CommandSpec = { positionals: ['project', 'environment', 'name...'], options: { '--json': {} } };
const envSet: CommandSpec = {
  positionals: ['project', 'environment'],
  options: { '--capture-mode': { value: true }, '--redact': { value: true, repeat: true }, '--clear-redact': {} },
};

describe('operator argument rules', () => {
  it('joins the variadic name and reads flags anywhere before --', () => {
    const parsed = parseArgs(['acme', 'production', '--json', 'billing', 'worker'], keyCreate);
    expect(parsed.positionals).toEqual({ project: 'acme', environment: 'production', name: 'billing worker' });
    expect(parsed.flags.has('--json')).toBe(true);
  });

  it('never runs a command for --help or -h, wherever they stand before --', () => {
    expect(parseArgs(['acme', '--help'], keyCreate).help).toBe(true);
    expect(parseArgs(['-h'], keyCreate).help).toBe(true);
    expect(parseArgs(['acme', 'production', '--', '--help'], keyCreate).help).toBe(false);
  });

  it('takes values that begin with a dash after --', () => {
    const parsed = parseArgs(['acme', 'production', '--', '-weird-name'], keyCreate);
    expect(parsed.positionals.name).toBe('-weird-name');
  });

  it('refuses an unknown option before --', () => {
    expect(() => parseArgs(['acme', 'production', '-weird'], keyCreate)).toThrow(UsageError);
  });

  it.each(['\u2014json', '\u2013json', 'na\u2212me', '\u2010x', '\uFF0Djson'])('refuses a non-ASCII dash before -- (%s)', (arg) => {
    expect(() => parseArgs(['acme', 'production', arg], keyCreate)).toThrow(/non-ASCII dash/);
  });

  it('accepts a non-ASCII dash after --', () => {
    expect(parseArgs(['acme', 'production', '--', '\u2014name'], keyCreate).positionals.name).toBe('\u2014name');
  });

  it('refuses extra arguments and missing ones', () => {
    expect(() => parseArgs(['acme', 'production', 'extra'], envSet)).toThrow(/extra argument/);
    expect(() => parseArgs(['acme'], envSet)).toThrow(/missing argument <environment>/);
    expect(() => parseArgs(['acme', 'production'], keyCreate)).toThrow(/missing argument <name...>/);
  });

  it('collects repeated options and refuses repeating a single one', () => {
    const parsed = parseArgs(['a', 'b', '--redact', 'x.y', '--redact=**.z'], envSet);
    expect(parsed.values.get('--redact')).toEqual(['x.y', '**.z']);
    expect(() => parseArgs(['a', 'b', '--capture-mode', 'x', '--capture-mode', 'y'], envSet)).toThrow(/more than once/);
  });

  it('refuses an option without its value and a flag given a value', () => {
    expect(() => parseArgs(['a', 'b', '--capture-mode'], envSet)).toThrow(/needs a value/);
    expect(() => parseArgs(['a', 'b', '--clear-redact=yes'], envSet)).toThrow(/takes no value/);
  });
});
