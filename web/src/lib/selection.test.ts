import { describe, expect, it } from 'vitest';
import { createSelection } from './selection.ts';

describe('the selection store', () => {
  it('tells its subscribers of a new selection, once, and not of the same one again', () => {
    const selection = createSelection('e1');
    let told = 0;
    const stop = selection.subscribe(() => (told += 1));
    selection.set('e1');
    expect(told).toBe(0);
    selection.set('e2');
    expect(selection.get()).toBe('e2');
    expect(told).toBe(1);
    stop();
    selection.set('e3');
    expect(told).toBe(1);
  });
});
