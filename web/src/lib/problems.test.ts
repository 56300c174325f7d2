import { describe, expect, it } from 'vitest';
import { problemListParams, seriesSummary, sparklinePoints } from './problems.ts';

describe('problem list parameters', () => {
  it('passes the filters, sort and cursor the API knows', () => {
    expect(problemListParams(new URLSearchParams('status=regressed,open&kind=lost&environment=production&service=crm&release=1.2.0&sort=lastSeen&cursor=abc'))).toEqual({
      status: 'regressed,open', kind: 'lost', environment: 'production', service: 'crm', release: '1.2.0', sort: 'lastSeen', cursor: 'abc',
    });
  });
  it('drops an unknown status or sort rather than sending a request the API refuses', () => {
    const params = problemListParams(new URLSearchParams('status=open,bogus&sort=size&kind='));
    expect(params.status).toBeUndefined();
    expect(params.sort).toBeUndefined();
    expect(params.kind).toBeUndefined();
    expect(problemListParams(new URLSearchParams('status=all')).status).toBe('all');
  });
});

describe('sparkline', () => {
  it('spreads the counts across the width with the largest at the top', () => {
    expect(sparklinePoints([0, 2, 1], 100, 20)).toBe('0,20 50,0 100,10');
  });
  it('draws an all-zero series flat at the bottom and a single count at x 0', () => {
    expect(sparklinePoints([0, 0], 10, 8)).toBe('0,8 10,8');
    expect(sparklinePoints([3], 10, 8)).toBe('0,0');
    expect(sparklinePoints([], 10, 8)).toBe('');
  });
  it('sums a series', () => {
    expect(seriesSummary([1, 0, 4])).toEqual({ total: 5, busiest: 4 });
  });
});
