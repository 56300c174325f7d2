import { runDoctor } from '../../doctor/doctor.ts';
import { UsageError, single } from '../args.ts';
import type { Command } from '../command.ts';

function parseApiUrl(raw: string | undefined): URL | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError('--api-url must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--api-url must be an http:// or https:// URL');
  return url;
}

export const doctor: Command = {
  name: 'doctor',
  usage: 'doctor [--api-url <url>] [--api-key <key>]',
  summary:
    'check the installation: secrets, database, migrations, keys against stored data, the API /ready and an API key (or SERVICE_API_KEY); exit 1 when a check failed',
  spec: { positionals: [], options: { '--api-url': { value: true }, '--api-key': { value: true } } },
  async run(ctx, args) {
    const apiUrl = parseApiUrl(single(args, '--api-url'));
    // Blank means unset, as for every variable. The spec's name only: never a bare API_KEY.
    const key = (single(args, '--api-key') ?? ctx.env.SERVICE_API_KEY ?? '').trim();
    return runDoctor(ctx, { apiUrl, apiKey: key === '' ? null : key });
  },
};
