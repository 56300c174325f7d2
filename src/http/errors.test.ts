import { describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS, statusesOf } from './errors.ts';

describe('ERROR_STATUS', () => {
  it('gives an AppError the status of its code', () => {
    expect(new AppError('invalid_query', 'x').status).toBe(400);
    expect(new AppError('unauthorized_environment', 'x').status).toBe(403);
    expect(new AppError('query_timeout', 'x').status).toBe(503);
    for (const code of Object.keys(ERROR_STATUS) as Array<keyof typeof ERROR_STATUS>) {
      expect(new AppError(code, 'x').status).toBe(ERROR_STATUS[code]);
    }
  });

  it('refuses a status the spec never pairs with the code', () => {
    expect(() => new AppError(404, 'invalid_query', 'x')).toThrow(TypeError);
    expect(() => new AppError(413, 'invalid_event', 'x')).toThrow(TypeError);
    expect(new AppError(413, 'payload_too_large', 'x').status).toBe(413);
    expect(new AppError(400, 'payload_too_large', 'x').status).toBe(400);
    expect(statusesOf('payload_too_large')).toEqual([400, 413]);
  });

  it('keeps details and headers', () => {
    const error = new AppError('too_many_attempts', 'wait', [{ path: 'a', message: 'b' }], { 'retry-after': '5' });
    expect(error.details).toEqual([{ path: 'a', message: 'b' }]);
    expect(error.headers).toEqual({ 'retry-after': '5' });
    expect(error.message).toBe('wait');
  });
});
