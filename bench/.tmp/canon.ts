import { canonicalEventJson, canonicalJson } from '../../src/protocol/canonical-json.ts';
import { validateEnvelope } from '../../src/protocol/envelope.ts';
import { makeBatch } from '../ingest-load.ts';
import { setOwn } from '../../src/protocol/own-keys.ts';

const INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
function sortedCopy(v: any): any {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) { const out = new Array(v.length); for (let i = 0; i < v.length; i++) out[i] = sortedCopy(v[i]); return out; }
  const keys = Object.keys(v).sort();
  const out: any = {};
  for (const k of keys) { if (INDEX.test(k)) throw new Error('index'); setOwn(out, k, sortedCopy(v[k])); }
  return out;
}
const b = (e: any) => { const { timestampMs, ...rest } = e; return JSON.stringify(sortedCopy(rest)); };

const NEEDS = /["\\\u0000-\u001f\ud800-\udfff]/;
function write(value: unknown): string {
  switch (typeof value) {
    case 'string': return NEEDS.test(value) ? JSON.stringify(value) : `"${value}"`;
    case 'boolean': return value ? 'true' : 'false';
    case 'number': return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) { let out = '['; for (let i = 0; i < value.length; i++) { if (i > 0) out += ','; const it = value[i]; out += it === undefined ? 'null' : write(it); } return out + ']'; }
      { const obj = value as any; const keys = Object.keys(obj).sort(); let out = '{'; let first = true;
        for (const key of keys) { const m = obj[key]; if (m === undefined) continue; if (!first) out += ','; first = false; out += (NEEDS.test(key) ? JSON.stringify(key) : `"${key}"`) + ':' + write(m); }
        return out + '}'; }
    default: throw new TypeError('x');
  }
}
const c = (e: any) => { const { timestampMs, ...rest } = e; return write(rest); };

const KEYS = new Map<string, string>();
function keyText(key: string): string { let t = KEYS.get(key); if (t === undefined) { t = (NEEDS.test(key) ? JSON.stringify(key) : `"${key}"`) + ':'; if (KEYS.size < 10000) KEYS.set(key, t); } return t; }
function writeD(value: unknown): string {
  switch (typeof value) {
    case 'string': return NEEDS.test(value) ? JSON.stringify(value) : `"${value}"`;
    case 'boolean': return value ? 'true' : 'false';
    case 'number': return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) { let out = '['; for (let i = 0; i < value.length; i++) { if (i > 0) out += ','; const it = value[i]; out += it === undefined ? 'null' : writeD(it); } return out + ']'; }
      { const obj = value as any; const keys = Object.keys(obj); if (keys.length > 1) keys.sort(); let out = '{'; let first = true;
        for (const key of keys) { const m = obj[key]; if (m === undefined) continue; if (!first) out += ','; first = false; out += keyText(key) + writeD(m); }
        return out + '}'; }
    default: throw new TypeError('x');
  }
}
const d = (e: any) => { const { timestampMs, ...rest } = e; return writeD(rest); };
const events = Array.from({ length: 10 }, (_, i) => makeBatch('c' + i)).flat().map((e) => (validateEnvelope(e) as any).event);
for (const e of events.slice(0, 50)) { const a = canonicalEventJson(e); if (b(e) !== a || c(e) !== a || d(e) !== a) throw new Error('mismatch'); }
const fns: Record<string, (e: any) => string> = { a: canonicalEventJson, b, c, d };
const res: Record<string, number[]> = { a: [], b: [], c: [], d: [] };
for (let r = 0; r < 30; r++) for (const [k, f] of Object.entries(fns)) { const t = performance.now(); for (const e of events) f(e); res[k]!.push(performance.now() - t); }
for (const k of Object.keys(res)) { const s = res[k]!.sort((x, y) => x - y); console.log(k, (s[15]! / 10).toFixed(3), 'ms per 100 events'); }
