import { describe, expect, it } from 'vitest';
import { CAPTURE_MODES, applyCapture, isCaptureMode } from './capture.ts';
import type { CapturableEvent, CaptureMode, CaptureSettings } from './capture.ts';

const R = '[REDACTED]';

function settings(captureMode: CaptureMode, extra: Partial<CaptureSettings> = {}): CaptureSettings {
  return { captureMode, redactionPaths: [], captureAllowlist: [], ...extra };
}

const event: CapturableEvent = {
  input: { customer: { ssn: '123', name: 'Ada' }, password: 'p', phone: '1' },
  output: { ok: true, ssn: '123' },
  error: {
    type: 'HttpError',
    code: 'E1',
    message: 'failed for postgres://a:b@db/x',
    stack: 'Error\n  at f (x.js:1:1) password=hunter2',
  },
  runtime: { language: 'node', hostname: 'h', sdk: { name: 'n', version: '1' } },
  deployment: { version: '1.2.3', image: 'img' },
  metadata: { tenant: 'acme', authorization: 'Bearer x', ssn: '9' },
};

describe('CAPTURE_MODES', () => {
  it('lists the four modes of 5.1', () => {
    expect(CAPTURE_MODES).toEqual(['metadata-only', 'allowlisted-fields', 'redacted-payload', 'full-payload']);
    expect(isCaptureMode('full-payload')).toBe(true);
    expect(isCaptureMode('everything')).toBe(false);
    expect(isCaptureMode(undefined)).toBe(false);
  });
});

describe('applyCapture: metadata-only', () => {
  it('stores no payload, drops the stack, still stores and redacts metadata', () => {
    const result = applyCapture(event, settings('metadata-only', { redactionPaths: ['ssn'] }), true);
    expect(result.inputPayload).toBeNull();
    expect(result.outputPayload).toBeNull();
    expect(result.hasInput).toBe(false);
    expect(result.hasOutput).toBe(false);
    expect(result.customMetadata).toEqual({ tenant: 'acme', authorization: R, ssn: R });
    expect(result.error).toEqual({ type: 'HttpError', code: 'E1', message: `failed for postgres://${R}@db/x` });
    expect(result.runtimeMetadata).toEqual(event.runtime);
    expect(result.deploymentMetadata).toEqual(event.deployment);
  });
});

describe('applyCapture: redacted-payload', () => {
  it('stores whole payloads with built-in and operator rules', () => {
    const result = applyCapture(event, settings('redacted-payload', { redactionPaths: ['customer.ssn', 'ssn'] }), false);
    expect(result.inputPayload).toEqual({ customer: { ssn: R, name: 'Ada' }, password: R, phone: '1' });
    expect(result.outputPayload).toEqual({ ok: true, ssn: R });
    expect(result.hasInput).toBe(true);
    expect(result.hasOutput).toBe(true);
    expect(result.error?.stack).toBeUndefined();
    expect(result.error && Object.hasOwn(result.error, 'stack')).toBe(false);
  });

  it('counts null input and output as absent', () => {
    const result = applyCapture({ input: null, output: null }, settings('redacted-payload'), false);
    expect(result).toEqual({
      inputPayload: null,
      outputPayload: null,
      hasInput: false,
      hasOutput: false,
      error: null,
      runtimeMetadata: null,
      deploymentMetadata: null,
      customMetadata: null,
      malformedRules: [],
    });
  });

  it('stores falsy payloads that were sent', () => {
    const result = applyCapture({ input: 0, output: '' }, settings('redacted-payload'), false);
    expect(result).toMatchObject({ inputPayload: 0, outputPayload: '', hasInput: true, hasOutput: true });
  });

  it('reports malformed rules and ignores them', () => {
    const withRules = settings('redacted-payload', { redactionPaths: ['a..b', 'a.b'] });
    const result = applyCapture({ input: { a: { b: 1 } } }, withRules, false);
    expect(result.malformedRules).toEqual(['a..b']);
    expect(result.inputPayload).toEqual({ a: { b: R } });
  });

  it('does not mutate the event', () => {
    const copy = structuredClone(event);
    applyCapture(event, settings('redacted-payload', { redactionPaths: ['ssn'] }), false);
    expect(event).toEqual(copy);
  });
});

describe('applyCapture: full-payload', () => {
  it('with the flag on: payloads get built-ins only, the stack is kept and masked', () => {
    const result = applyCapture(event, settings('full-payload', { redactionPaths: ['customer.ssn', 'ssn'] }), true);
    expect(result.inputPayload).toEqual({ customer: { ssn: '123', name: 'Ada' }, password: R, phone: '1' });
    expect(result.outputPayload).toEqual({ ok: true, ssn: '123' });
    expect(result.error).toEqual({
      type: 'HttpError',
      code: 'E1',
      message: `failed for postgres://${R}@db/x`,
      stack: `Error\n  at f (x.js:1:1) password=${R}`,
    });
    // Metadata keeps operator rules in every mode.
    expect(result.customMetadata).toEqual({ tenant: 'acme', authorization: R, ssn: R });
  });

  it('with the flag off: behaves as redacted-payload', () => {
    const full = applyCapture(event, settings('full-payload', { redactionPaths: ['ssn'] }), false);
    const redacted = applyCapture(event, settings('redacted-payload', { redactionPaths: ['ssn'] }), false);
    expect(full).toEqual(redacted);
    expect(full.error && Object.hasOwn(full.error, 'stack')).toBe(false);
  });

  it('the flag alone does not keep a stack in other modes', () => {
    expect(applyCapture(event, settings('redacted-payload'), true).error).not.toHaveProperty('stack');
  });
});

describe('applyCapture: allowlisted-fields', () => {
  const input = { customer: { name: 'Ada', ssn: '1', address: { city: 'X', zip: 'Z' } }, items: [{ sku: 's' }], total: 3 };

  it('copies only the allowlisted paths, then redacts', () => {
    const result = applyCapture(
      { input, output: { total: 4, password: 'x' } },
      settings('allowlisted-fields', {
        captureAllowlist: ['customer.name', 'customer.address', 'total', 'password'],
        redactionPaths: ['*.city'],
      }),
      false,
    );
    expect(result.inputPayload).toEqual({ customer: { name: 'Ada', address: { city: 'X', zip: 'Z' } }, total: 3 });
    expect(result.outputPayload).toEqual({ total: 4, password: R });
    expect(result.hasInput).toBe(true);
  });

  it('applies operator rules to the selected fields (decision 4)', () => {
    const result = applyCapture(
      { input },
      settings('allowlisted-fields', { captureAllowlist: ['customer'], redactionPaths: ['customer.ssn'] }),
      false,
    );
    expect(result.inputPayload).toEqual({ customer: { name: 'Ada', ssn: R, address: { city: 'X', zip: 'Z' } } });
  });

  it('selects nothing for missing paths or paths crossing a non-object', () => {
    const allow = ['customer.phone', 'items.sku', 'items.0.sku', 'total.x', 'nothing'];
    const result = applyCapture({ input }, settings('allowlisted-fields', { captureAllowlist: allow }), false);
    expect(result.inputPayload).toEqual({});
  });

  it('compares keys exactly (no folding) and turns a non-object payload into {}', () => {
    const allowTotal = settings('allowlisted-fields', { captureAllowlist: ['total'] });
    const exact = applyCapture({ input: { Total: 1, total: 2 } }, allowTotal, false);
    expect(exact.inputPayload).toEqual({ total: 2 });
    for (const payload of [[1, 2], 'text', 5, true]) {
      const result = applyCapture({ input: payload }, settings('allowlisted-fields', { captureAllowlist: ['0'] }), false);
      expect(result.inputPayload).toEqual({});
      expect(result.hasInput).toBe(true);
    }
  });

  it('keeps nothing with an empty allowlist, and a whole parent wins over its child path', () => {
    expect(applyCapture({ input }, settings('allowlisted-fields'), false).inputPayload).toEqual({});
    const allowBoth = settings('allowlisted-fields', { captureAllowlist: ['customer.name', 'customer'] });
    const both = applyCapture({ input }, allowBoth, false);
    expect(both.inputPayload).toEqual({ customer: input.customer });
  });

  it('keeps __proto__ as an own key of the new object', () => {
    const parsed = JSON.parse('{"__proto__":{"a":1,"b":2},"c":3}') as unknown;
    const allowProto = settings('allowlisted-fields', { captureAllowlist: ['__proto__.a'] });
    const result = applyCapture({ input: parsed }, allowProto, false);
    const stored = result.inputPayload as Record<string, unknown>;
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(JSON.stringify(stored)).toBe('{"__proto__":{"a":1}}');
  });
});

describe('applyCapture: error', () => {
  it('masks the message by shape in every mode; type and code untouched', () => {
    const error = { type: 'password=x', code: 'Bearer abcdefgh1', message: 'token=abc' };
    for (const mode of CAPTURE_MODES) {
      expect(applyCapture({ error }, settings(mode), true).error).toEqual({
        type: 'password=x',
        code: 'Bearer abcdefgh1',
        message: `token=${R}`,
      });
    }
  });

  it('keeps optional members absent and drops unknown fields', () => {
    const error = { message: 'm', extra: 'x' } as unknown as CapturableEvent['error'];
    const stored = applyCapture({ error }, settings('redacted-payload'), false).error;
    expect(stored).toEqual({ message: 'm' });
    expect(Object.keys(stored ?? {})).toEqual(['message']);
  });

  it('applies operator rules and header lines to the error as a root', () => {
    const error = { message: 'Host: h\r\nAuthorization: x', code: 'c' };
    const stored = applyCapture({ error }, settings('redacted-payload', { redactionPaths: ['code'] }), false).error;
    expect(stored).toEqual({ message: 'Host: h\r\nAuthorization: [REDACTED]', code: R });
  });
});

describe('applyCapture: metadata objects', () => {
  it('redacts runtime and deployment with built-in and operator rules', () => {
    const result = applyCapture(
      { runtime: { hostname: 'h', sdk: { name: 'n', version: '1' } }, deployment: { image: 'registry/app:1' } },
      settings('full-payload', { redactionPaths: ['hostname', '**.image'] }),
      true,
    );
    expect(result.runtimeMetadata).toEqual({ hostname: R, sdk: { name: 'n', version: '1' } });
    expect(result.deploymentMetadata).toEqual({ image: R });
  });

  it('keeps a __proto__ metadata key', () => {
    const metadata = JSON.parse('{"__proto__":"m","attempt":"1"}') as Record<string, unknown>;
    const result = applyCapture({ metadata }, settings('metadata-only'), false);
    expect(JSON.stringify(result.customMetadata)).toBe('{"__proto__":"m","attempt":"1"}');
  });
});
