import { describe, expect, it } from 'vitest';
import { aliasLooseForms, isPhoneAliasType, queryLooseForms } from './loose-forms.ts';

describe('loose forms', () => {
  it('gives an e-mail address in lower case, whatever its alias type is called', () => {
    expect(aliasLooseForms('contact', '  Ada.Lovelace@Example.COM ')).toEqual([{ kind: 'email', value: 'ada.lovelace@example.com' }]);
    expect(queryLooseForms('ADA.LOVELACE@EXAMPLE.COM')).toEqual([{ kind: 'email', value: 'ada.lovelace@example.com' }]);
    expect(aliasLooseForms('email', 'not an address')).toEqual([]);
  });

  it('gives E.164 and national digits for a number written with its country code, in any spelling', () => {
    const expected = [{ kind: 'phone', value: '+442079460018' }, { kind: 'phone_national', value: '02079460018' }];
    for (const written of ['+44 20 7946 0018', '+44-20-7946-0018', '0044 (20) 7946.0018', '+442079460018']) {
      expect(queryLooseForms(written)).toEqual(expected);
      expect(aliasLooseForms('phone', written)).toEqual(expected);
    }
  });

  it('gives national digits alone for a number written without a country code', () => {
    expect(queryLooseForms('020 7946-0018')).toEqual([{ kind: 'phone_national', value: '02079460018' }]);
    expect(aliasLooseForms('msisdn', '(020) 7946 0018')).toEqual([{ kind: 'phone_national', value: '02079460018' }]);
  });

  it('reads digits as a phone number only under a phone type or in international form', () => {
    expect(aliasLooseForms('order_id', '02079460018')).toEqual([]);
    expect(aliasLooseForms('order_id', '+44 20 7946 0018')).toHaveLength(2);
    expect(aliasLooseForms('customer_phone', '02079460018')).toHaveLength(1);
    expect(aliasLooseForms('phone', '+44 12')).toEqual([]);
    expect(queryLooseForms('12-34')).toEqual([]);
  });

  it('recognises phone alias types by name', () => {
    for (const type of ['phone', 'Phone_Number', 'MSISDN', 'mobile', 'tel', 'cell']) expect(isPhoneAliasType(type)).toBe(true);
    for (const type of ['email', 'order_id', 'telemetry_id', 'hotel']) expect(isPhoneAliasType(type)).toBe(false);
  });
});
