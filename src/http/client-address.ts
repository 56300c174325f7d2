// Which address a request comes from, and under which key its failed credentials are counted
// (interface-spec 5, "Throttling of failed credentials", rules 5 and 6).
//
// ipaddr.js parses the addresses themselves (`::` compression, embedded IPv4); this file peels
// off what sockets and proxies add around them (brackets, ports, zones) and turns every form
// into a single canonical key.

import ipaddr from 'ipaddr.js';

export type ParsedAddress =
  | { family: 4; octets: [number, number, number, number] }
  | { family: 6; groups: number[] };

// Longest textual IPv6 with a zone we care about; anything longer is not an address.
const MAX_ADDRESS_CHARS = 128;

/** An address without port, brackets or zone, parsed by ipaddr.js; null when it is none. */
function parseBare(text: string): ParsedAddress | null {
  // Four-part decimal only: leading zeros (read as octal by some parsers) and the short forms
  // inet_aton accepts (`127.1`) have no clear meaning.
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) {
    return { family: 4, octets: ipaddr.IPv4.parse(text).octets as [number, number, number, number] };
  }
  if (!text.includes(':')) return null;
  // An embedded IPv4 tail is read here: ipaddr.js would accept leading zeros in it and turn
  // `::1.2.3.4` into the mapped `::ffff:1.2.3.4`, which is another address.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  let hex = text;
  if (tail.includes('.')) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail).octets as [number, number, number, number];
    hex = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.isValid(hex) ? { family: 6, groups: ipaddr.IPv6.parse(hex).parts } : null;
}

/**
 * Parse an address as written by a socket or a proxy: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`,
 * `[2001:db8::1]:443`, `fe80::1%eth0`, `::ffff:1.2.3.4`. Null when it is not an IP address.
 */
export function parseAddress(input: string): ParsedAddress | null {
  let text = input.trim().toLowerCase();
  if (text === '' || text.length > MAX_ADDRESS_CHARS) return null;
  if (text.startsWith('[')) {
    // `[v6]` or `[v6]:port`.
    const close = text.indexOf(']');
    if (close < 0) return null;
    const rest = text.slice(close + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    text = text.slice(1, close);
  } else if (/^[\d.]+:\d{1,5}$/.test(text)) {
    // IPv4 with a port; an unbracketed IPv6 never has dots before its first colon.
    text = text.slice(0, text.indexOf(':'));
  }
  const zone = text.indexOf('%');
  if (zone >= 0 && text.includes(':')) text = text.slice(0, zone);
  return parseBare(text);
}

function isIPv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
}

/**
 * The key failed credentials are counted under:
 * - IPv4: the dotted address (`203.0.113.7`);
 * - IPv4-mapped IPv6 (`::ffff:203.0.113.7`, `::ffff:cb00:7107`): the IPv4 address, so a
 *   dual-stack socket and an IPv4 socket count the same client once;
 * - other IPv6: its /64 (`2001:db8:0:1::/64`), since one host commonly holds a whole /64;
 * ports, brackets and zones ignored. Something that is not an address (should not happen with
 * socket addresses) is counted under its own text, bounded in length.
 */
export function throttleKey(address: string): string {
  const parsed = parseAddress(address);
  if (parsed === null) return `other:${address.trim().slice(0, MAX_ADDRESS_CHARS)}`;
  if (parsed.family === 4) return parsed.octets.join('.');
  const g = parsed.groups;
  if (isIPv4Mapped(g)) {
    const hi = g[6] as number;
    const lo = g[7] as number;
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${g.slice(0, 4).map((n) => n.toString(16)).join(':')}::/64`;
}

function forwardedEntries(forwardedFor: string | readonly string[] | undefined): string[] {
  if (forwardedFor === undefined) return [];
  // Several X-Forwarded-For header lines are one list, in order (RFC 9110 5.3).
  const joined = typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',');
  // Empty entries (`a,,b`, trailing comma) are not hops: no proxy writes an empty entry.
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The request's source address (rule 6).
 * - trustedProxyCount 0: the socket's address; X-Forwarded-For is ignored.
 * - trustedProxyCount n > 0: the X-Forwarded-For entry n hops from the right (n = 1: the
 *   right-most, written by the one proxy in front of us).
 * - Fewer entries than n (the request skipped an outer proxy): the left-most entry, the
 *   furthest hop we know of; this is what Express / proxy-addr do with a hop count.
 * - No header, or the chosen entry is not an IP address: the socket's address. A garbage
 *   entry then counts under the proxy's address rather than under a client-chosen string
 *   that could be varied to dodge the count.
 */
export function resolveClientAddress(
  socketAddress: string,
  forwardedFor: string | readonly string[] | undefined,
  trustedProxyCount: number,
): string {
  if (!(trustedProxyCount > 0)) return socketAddress;
  const entries = forwardedEntries(forwardedFor);
  if (entries.length === 0) return socketAddress;
  const index = Math.max(0, entries.length - Math.floor(trustedProxyCount));
  const chosen = entries[index] as string;
  return parseAddress(chosen) === null ? socketAddress : chosen;
}
