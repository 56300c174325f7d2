// Which address a request comes from, and under which key its failed credentials are counted
// (interface-spec 5, "Throttling of failed credentials", rules 5 and 6).
//
// Parsing is done by hand rather than with node:net so that one function sees every form we
// accept (brackets, ports, zones, `::` compression, embedded IPv4) and turns them into a single
// canonical key.

export type ParsedAddress =
  | { family: 4; octets: [number, number, number, number] }
  | { family: 6; groups: number[] };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;
// Longest textual IPv6 with a zone we care about; anything longer is not an address.
const MAX_ADDRESS_CHARS = 128;

function parseIPv4(text: string): [number, number, number, number] | null {
  const m = IPV4.exec(text);
  if (m === null) return null;
  const octets: number[] = [];
  for (const part of m.slice(1, 5) as string[]) {
    // Leading zeros are refused: some parsers read them as octal, so their meaning is unclear.
    if (part.length > 1 && part.startsWith('0')) return null;
    const n = Number(part);
    if (n > 255) return null;
    octets.push(n);
  }
  return octets as [number, number, number, number];
}

function parseGroups(text: string): number[] | null {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    // An embedded IPv4 address may only be the last part (`::ffff:1.2.3.4`).
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIPv4(part);
      if (v4 === null) return null;
      groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseIPv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0] as string);
  if (head === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const tail = parseGroups(halves[1] as string);
  if (tail === null) return null;
  // `::` stands for at least one zero group.
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
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
  const v4 = parseIPv4(text);
  if (v4 !== null) return { family: 4, octets: v4 };
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!text.includes(':')) return null;
  const groups = parseIPv6(text);
  return groups === null ? null : { family: 6, groups };
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
