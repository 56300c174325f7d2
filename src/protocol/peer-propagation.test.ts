import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPeerValue, readPeerContext } from './peer-propagation.ts';

describe('readPeerContext', () => {
  it('takes a journey id with the jrn_ prefix, and the entity only when both fields are usable', () => {
    expect(readPeerContext({ journeyId: 'jrn_1', entityType: 'order', entityId: 'A-1' }, 128, 128, 512)).toEqual({
      journeyId: 'jrn_1',
      entity: { type: 'order', id: 'A-1' },
    });
    expect(readPeerContext({ journeyId: 'jrn_1', entityType: 'order', entityId: undefined }, 128, 128, 512)).toEqual({ journeyId: 'jrn_1' });
    expect(readPeerContext({ journeyId: 'jrn_1', entityType: 'order', entityId: 'a b' }, 128, 128, 512)).toEqual({ journeyId: 'jrn_1' });
  });

  it('refuses a journey id without the prefix, outside the character set, or over jtrace length', () => {
    for (const journeyId of [undefined, '', 'order-1', 'jrn_a\r\n', 'jrn_%41', `jrn_${'a'.repeat(125)}`]) {
      expect(readPeerContext({ journeyId, entityType: 'order', entityId: '1' }, 128, 128, 512)).toBeNull();
    }
  });

  it('never accepts a value outside [A-Za-z0-9_.:@=+-]{1,256}', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        if (isPeerValue(value)) expect(value).toMatch(/^[A-Za-z0-9_.:@=+-]{1,256}$/);
        const context = readPeerContext({ journeyId: `jrn_${value}`, entityType: value, entityId: value }, 128, 128, 512);
        if (context !== null) expect(context.journeyId).toMatch(/^jrn_[A-Za-z0-9_.:@=+-]*$/);
      }),
    );
  });
});
