import { describe, expect, it } from 'vitest';
import { OPERATIONS, classifyEvent } from './envelope-types.ts';
import { validateEnvelope } from './envelope.ts';

describe('classifyEvent (3.2)', () => {
  it('classifies by error and operation', () => {
    expect(classifyEvent({ operation: 'failed' })).toBe('failing');
    expect(classifyEvent({ operation: 'delivered', error: { message: 'x' } })).toBe('failing');
    expect(classifyEvent({ operation: 'completed', error: { message: 'x' } })).toBe('failing');
    expect(classifyEvent({ operation: 'retried', error: { message: 'x' } })).toBe('failing');
    expect(classifyEvent({ operation: 'completed' })).toBe('completing');
    expect(classifyEvent({ operation: 'retried' })).toBe('clearing');
    for (const operation of OPERATIONS.filter((op) => !['failed', 'completed', 'retried'].includes(op))) {
      expect(classifyEvent({ operation })).toBe('neutral');
    }
  });

  it('classifies a validated event', () => {
    const result = validateEnvelope({
      protocolVersion: '0.1',
      event: {
        id: 'e', journeyId: 'j', environment: 'p', service: 's', entity: { type: 't', id: 'i' },
        operation: 'completed', name: 'n', timestamp: '2026-08-06T18:31:02Z',
      },
    });
    expect(result.ok && classifyEvent(result.event)).toBe('completing');
  });
});
