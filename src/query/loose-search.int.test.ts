// Loose matching (match=loose): what a support person types finds an e-mail address whatever its
// case and a phone number in any spelling; the exact search answers as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, API_KEY, createReadFixture, get, ingest, refusal, urlWith, type ReadFixture } from './test-fixtures.ts';

let fx: ReadFixture;

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    // As a webhook sent them: upper-case mail, phone numbers in E.164 and in national form.
    { id: 'e-mail', journeyId: 'j-mail', timestamp: '2026-02-10T10:00:00.000Z', entity: { type: 'contact', id: 'C-1' }, aliases: { email: 'Ada.Lovelace@Example.COM' } },
    { id: 'e-intl', journeyId: 'j-intl', timestamp: '2026-02-11T10:00:00.000Z', entity: { type: 'contact', id: 'C-2' }, aliases: { phone: '+442079460018' } },
    { id: 'e-natl', journeyId: 'j-natl', timestamp: '2026-02-12T10:00:00.000Z', entity: { type: 'contact', id: 'C-3' }, aliases: { msisdn: '020 7946 0018' } },
    { id: 'e-other', journeyId: 'j-other', timestamp: '2026-02-13T10:00:00.000Z', entity: { type: 'order', id: '02079460018' }, aliases: { order_ref: '0207 946 0019' } },
  ]);
});
afterAll(async () => fx.close());

const search = (q: string, match?: string) => get(fx, API_KEY, urlWith('/v1/search', [['q', q], ...(match === undefined ? [] : [['match', match] as [string, string]])]));
const ids = async (q: string, match?: string) => {
  const response = await search(q, match);
  expect(response.statusCode).toBe(200);
  return (response.json().data.items as Array<{ journeyId: string }>).map((item) => item.journeyId);
};

describe('GET /v1/search?match=loose', () => {
  it('finds an e-mail address typed in another case, which the exact search does not', async () => {
    expect(await ids('ada.lovelace@example.com')).toEqual([]);
    expect(await ids('ada.lovelace@example.com', 'loose')).toEqual(['j-mail']);
    expect(await ids('ADA.LOVELACE@EXAMPLE.COM', 'loose')).toEqual(['j-mail']);
  });

  it.each([
    ['international with spaces', '+44 20 7946 0018', ['j-natl', 'j-intl']],
    ['international with dashes', '+44-20-7946-0018', ['j-natl', 'j-intl']],
    ['international with 00', '0044 20 7946 0018', ['j-natl', 'j-intl']],
    ['national with spaces', '020 7946 0018', ['j-natl', 'j-intl']],
    ['national with dashes and brackets', '(020) 7946-0018', ['j-natl', 'j-intl']],
  ])('finds a phone number written %s', async (_how, q, expected) => {
    expect(await ids(q, 'loose')).toEqual(expected);
  });

  it('finds nothing loosely for a number of another kind or a near miss', async () => {
    expect(await ids('+44 20 7946 0019', 'loose')).toEqual([]);
    expect(await ids('ada@example.com', 'loose')).toEqual([]);
  });

  it('still finds what the exact search finds', async () => {
    expect(await ids('C-1', 'loose')).toEqual(['j-mail']);
    expect(await ids('Ada.Lovelace@Example.COM', 'loose')).toEqual(['j-mail']);
    expect(await ids('02079460018', 'loose')).toEqual(['j-other', 'j-natl', 'j-intl']);
  });

  it('leaves the exact search as it was: the value as normalized, nothing else', async () => {
    expect(await ids('Ada.Lovelace@Example.COM')).toEqual(['j-mail']);
    expect(await ids('Ada.Lovelace@Example.COM', 'exact')).toEqual(['j-mail']);
    expect(await ids('+44 20 7946 0018')).toEqual([]);
    expect(await ids('020 7946 0018')).toEqual(['j-natl']);
  });

  it('refuses another match value', async () => {
    const response = await get(fx, ADMIN, urlWith('/v1/search', [['q', 'x'], ['match', 'fuzzy']]));
    expect(refusal(response, 400)).toBe('invalid_query');
  });
});
