import { MAX_ENVIRONMENT_NAME_LENGTH, NotFoundError, createApiKey, revokeApiKeyByPrefix } from '../../auth/api-key-service.ts';
import { listApiKeys } from '../../auth/api-key-service.ts';
import { formatTimestamp } from '../../protocol/timestamps.ts';
import { UsageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK } from '../context.ts';

export const keyCreate: Command = {
  name: 'key:create',
  usage: 'key:create <project> <environment> <name...> [--json]',
  summary: 'create an API key for an environment (the environment is created if needed); printed once',
  spec: { positionals: ['project', 'environment', 'name...'], options: { '--json': {} } },
  async run(ctx, args) {
    const environment = args.positionals.environment!;
    const name = args.positionals.name!.trim();
    if (environment.length < 1 || [...environment].length > MAX_ENVIRONMENT_NAME_LENGTH) {
      throw new UsageError(`the environment name must be 1 to ${MAX_ENVIRONMENT_NAME_LENGTH} characters`);
    }
    if (name === '' || name.length > 200) throw new UsageError('the key name must be 1 to 200 characters');
    return ctx.withServices(async ({ pool, keyring, config }) => {
      try {
        const created = await createApiKey(pool, keyring, {
          projectSlug: args.positionals.project!,
          environmentName: environment,
          name,
          defaultRetentionDays: config.defaultRetentionDays,
        });
        if (args.flags.has('--json')) {
          ctx.io.out(JSON.stringify(created));
        } else {
          ctx.io.out(`API key for ${created.projectSlug}/${created.environmentName} (prefix ${created.keyPrefix}):`);
          ctx.io.out(created.apiKey);
          ctx.io.out('It is shown only now and cannot be recovered.');
        }
        return EXIT_OK;
      } catch (error) {
        if (error instanceof NotFoundError) {
          ctx.io.err(error.message);
          return EXIT_FAILED;
        }
        throw error;
      }
    });
  },
};

export const keyList: Command = {
  name: 'key:list',
  usage: 'key:list',
  summary: 'list API keys by prefix (never the secret)',
  spec: { positionals: [] },
  async run(ctx) {
    return ctx.withServices(async ({ pool }) => {
      const keys = await listApiKeys(pool);
      if (keys.length === 0) ctx.io.out('no API keys');
      for (const key of keys) {
        const state = key.revokedAt ? `revoked ${formatTimestamp(key.revokedAt.getTime())}` : 'active';
        const used = key.lastUsedAt ? formatTimestamp(key.lastUsedAt.getTime()) : 'never';
        ctx.io.out(`${key.prefix}\t${key.projectSlug}/${key.environmentName}\t${key.name}\t${state}\tlast used ${used}`);
      }
      return EXIT_OK;
    });
  },
};

export const keyRevoke: Command = {
  name: 'key:revoke',
  usage: 'key:revoke <prefix>',
  summary: 'revoke an API key by its prefix',
  spec: { positionals: ['prefix'] },
  async run(ctx, args) {
    const prefix = args.positionals.prefix!;
    return ctx.withServices(async ({ pool }) => {
      if (!(await revokeApiKeyByPrefix(pool, prefix))) {
        ctx.io.err(`no active API key has the prefix ${prefix}`);
        return EXIT_FAILED;
      }
      ctx.io.out(`revoked ${prefix}`);
      return EXIT_OK;
    });
  },
};
