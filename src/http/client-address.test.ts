import { describe, expect, it } from 'vitest';
import { parseAddress, resolveClientAddress, throttleKey } from './client-address.ts';

describe('throttleKey', () => {
  it('keeps IPv4 as is, without a port', () => {
    expect(throttleKey('203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKey('203.0.113.7:51234')).toBe('203.0.113.7');
    expect(throttleKey(' 203.0.113.7 ')).toBe('203.0.113.7');
  });

  it('groups IPv6 by /64, expanding :: forms', () => {
    const key = '2001:db8:0:1::/64';
    expect(throttleKey('2001:db8:0:1::1')).toBe(key);
    expect(throttleKey('2001:db8:0:1:ffff:ffff:ffff:ffff')).toBe(key);
    expect(throttleKey('2001:0DB8:0000:0001:0000:0000:0000:0042')).toBe(key);
    expect(throttleKey('2001:db8::1:0:0:0:1')).toBe(key);
    expect(throttleKey('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(throttleKey('::1')).toBe('0:0:0:0::/64');
    expect(throttleKey('::')).toBe('0:0:0:0::/64');
    expect(throttleKey('fe80::')).toBe('fe80:0:0:0::/64');
    expect(throttleKey('1:2:3:4:5:6:7::')).toBe('1:2:3:4::/64');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(throttleKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(throttleKey('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKey('[::ffff:203.0.113.7]:443')).toBe('203.0.113.7');
  });

  it('ignores brackets, ports and zones', () => {
    expect(throttleKey('[2001:db8:0:1::1]')).toBe('2001:db8:0:1::/64');
    expect(throttleKey('[2001:db8:0:1::1]:8080')).toBe('2001:db8:0:1::/64');
    expect(throttleKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttleKey('[fe80::1%25eth0]:80')).toBe('fe80:0:0:0::/64');
    expect(throttleKey('fe80::1%eth0')).toBe(throttleKey('fe80::2%eth1'));
  });

  it('keys something that is not an address under its own text', () => {
    expect(throttleKey('unknown')).toBe('other:unknown');
    expect(throttleKey('')).toBe('other:');
  });
});

describe('parseAddress', () => {
  it('refuses malformed addresses', () => {
    for (const bad of ['1.2.3', '1.2.3.256', '01.2.3.4', '1:2:3:4:5:6:7:8:9', '1::2::3', ':1:2:3:4:5:6:7', '12345::', 'g::1', '1:2:3:4:5:6:7:8::', '[::1', '[::1]x', '::ffff:1.2.3', 'a.b.c.d']) {
      expect(parseAddress(bad), bad).toBeNull();
    }
  });

  it('parses full and compressed forms to eight groups', () => {
    expect(parseAddress('1::8')).toEqual({ family: 6, groups: [1, 0, 0, 0, 0, 0, 0, 8] });
    expect(parseAddress('1.2.3.4')).toEqual({ family: 4, octets: [1, 2, 3, 4] });
  });
});

describe('resolveClientAddress', () => {
  const socket = '10.0.0.5';
  const xff = '198.51.100.1, 203.0.113.9, 192.0.2.44';

  it('uses the socket address when no proxy is trusted, whatever the header says', () => {
    expect(resolveClientAddress(socket, xff, 0)).toBe(socket);
    expect(resolveClientAddress(socket, undefined, 0)).toBe(socket);
  });

  it('takes the entry that many hops from the right', () => {
    expect(resolveClientAddress(socket, xff, 1)).toBe('192.0.2.44');
    expect(resolveClientAddress(socket, xff, 2)).toBe('203.0.113.9');
    expect(resolveClientAddress(socket, xff, 3)).toBe('198.51.100.1');
  });

  it('uses the left-most entry when there are fewer entries than trusted proxies', () => {
    expect(resolveClientAddress(socket, '192.0.2.44', 2)).toBe('192.0.2.44');
    expect(resolveClientAddress(socket, xff, 5)).toBe('198.51.100.1');
  });

  it('uses the socket address when the header is missing or empty', () => {
    expect(resolveClientAddress(socket, undefined, 1)).toBe(socket);
    expect(resolveClientAddress(socket, ' , ', 1)).toBe(socket);
  });

  it('falls back to the socket address when the chosen entry is not an address', () => {
    expect(resolveClientAddress(socket, '192.0.2.1, unknown', 1)).toBe(socket);
    expect(resolveClientAddress(socket, 'garbage, 192.0.2.1', 2)).toBe(socket);
  });

  it('a client-sent entry cannot displace the one a trusted proxy appended', () => {
    // The client sends its own X-Forwarded-For; the single proxy appends the real address.
    expect(resolveClientAddress(socket, '1.1.1.1, 2.2.2.2, 192.0.2.44', 1)).toBe('192.0.2.44');
  });

  it('joins repeated header lines and skips empty entries', () => {
    expect(resolveClientAddress(socket, ['198.51.100.1', '203.0.113.9, 192.0.2.44'], 2)).toBe('203.0.113.9');
    expect(resolveClientAddress(socket, '198.51.100.1,, 192.0.2.44,', 2)).toBe('198.51.100.1');
  });

  it('accepts IPv6 entries, bracketed or with ports, and they key correctly', () => {
    const chosen = resolveClientAddress(socket, '[2001:db8:0:1::7]:4711, 192.0.2.44', 2);
    expect(chosen).toBe('[2001:db8:0:1::7]:4711');
    expect(throttleKey(chosen)).toBe('2001:db8:0:1::/64');
  });
});

describe('parseAddress on ipaddr.js keeps the embedded-IPv4 rules', () => {
  it('refuses leading zeros in an embedded IPv4 tail and keeps ::1.2.3.4 apart from the mapped form', () => {
    expect(parseAddress('::ffff:01.2.3.4')).toBeNull();
    expect(parseAddress('ffff::ffff:1.2.3.04')).toBeNull();
    expect(parseAddress('::1.2.3.4')).toEqual({ family: 6, groups: [0, 0, 0, 0, 0, 0, 0x102, 0x304] });
    expect(parseAddress('::ffff:1.2.3.4')).toEqual({ family: 6, groups: [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304] });
    expect(parseAddress('1:2:3:4:5:6:7::8')).toBeNull();
    expect(parseAddress('1::2::3')).toBeNull();
  });
});
