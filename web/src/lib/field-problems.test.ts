import { describe, expect, it } from 'vitest';
import { inWords, labelOf, problemsOf } from './field-problems.ts';

describe('field problems', () => {
  const labels = { deadlineSeconds: 'Deadline', 'threshold.count': 'At least', 'settings.redactionPaths.*': 'Redaction rules', redactionPaths: 'Redaction rules' };

  it('names the field by its label, a list item as a line', () => {
    expect(labelOf('deadlineSeconds', labels)).toBe('Deadline');
    expect(labelOf('settings.redactionPaths.0', labels)).toBe('Redaction rules, line 1');
    expect(labelOf('redactionPaths.4', labels)).toBe('Redaction rules');
    expect(labelOf('unknown.path', labels)).toBe('unknown.path');
  });

  it('words the validation messages', () => {
    expect(inWords('Too small: expected number to be >0')).toBe('must be more than 0');
    expect(inWords('Too small: expected number to be >=1')).toBe('must be at least 1');
    expect(inWords('Too big: expected number to be <=1440')).toBe('must be at most 1440');
    expect(inWords('Too small: expected string to have >=1 characters')).toBe('must not be empty');
    expect(inWords('Invalid input: expected int, received number')).toBe('must be a whole number');
    expect(inWords('is not a valid redaction rule (event protocol 5.5)')).toBe('is not a valid redaction rule');
  });

  it('reads the details of a refused request', () => {
    const error = { details: [{ path: 'threshold.count', message: 'Too small: expected number to be >=1' }] };
    expect(problemsOf(error, labels)).toEqual([{ path: 'threshold.count', field: 'At least', message: 'must be at least 1' }]);
    expect(problemsOf(new Error('x'), labels)).toEqual([]);
  });
});
