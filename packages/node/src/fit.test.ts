import { describe, expect, it } from 'vitest';
import { KEY_TOO_LONG, PAYLOAD_TOO_LARGE, fitAliases, fitEnvelopeSize, fitErrorMessage, fitLabel, fitMetadata } from './fit.ts';

describe('fitting to the server limits', () => {
  it('drops a blank label and cuts a long one to 199 code points and an ellipsis', () => {
    expect(fitLabel(' \t ')).toBeUndefined();
    expect(fitLabel('Order 1')).toBe('Order 1');
    const cut = fitLabel(`${'a'.repeat(198)}😀tail`) ?? '';
    expect(cut).toBe(`${'a'.repeat(198)}😀…`);
    expect(Array.from(cut)).toHaveLength(200);
  });

  it('cuts an error message to 4,096 code points ending in [TRUNCATED]', () => {
    const message = fitErrorMessage('e'.repeat(5_000));
    expect(Array.from(message)).toHaveLength(4_096);
    expect(message.endsWith('[TRUNCATED]')).toBe(true);
    expect(fitErrorMessage('')).toBe('Error');
  });

  it('leaves off aliases and metadata keys the server would refuse', () => {
    const long = 'k'.repeat(129);
    expect(fitAliases({ [long]: 'v', ok: 'v', big: 'v'.repeat(513) }, ['ok', long])).toEqual({ aliases: { ok: 'v' }, displayableAliases: ['ok'], droppedTypes: [long, 'big'] });
    expect(fitMetadata({ [long]: 1, [`${long}x`]: 2, tenant: 'acme' })).toEqual({ tenant: 'acme', [KEY_TOO_LONG]: 2 });
  });

  it('replaces the larger payload first, then the other, then drops metadata', () => {
    const envelope = () => ({ event: { id: 'e', input: 'i'.repeat(3_000), output: 'o'.repeat(2_000), metadata: { m: 'm'.repeat(1_500) } } });
    const first = envelope();
    fitEnvelopeSize(first, 4_000);
    expect([first.event.input, first.event.output]).toEqual([PAYLOAD_TOO_LARGE, 'o'.repeat(2_000)]);
    const second = envelope();
    fitEnvelopeSize(second, 2_000);
    expect([second.event.input, second.event.output, second.event.metadata]).toEqual([PAYLOAD_TOO_LARGE, PAYLOAD_TOO_LARGE, { m: 'm'.repeat(1_500) }]);
    const third = envelope();
    const json = fitEnvelopeSize(third, 1_024);
    expect(third.event).not.toHaveProperty('metadata');
    expect(JSON.parse(json)).toEqual(third);
  });
});
