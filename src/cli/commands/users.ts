// user:* commands: accounts and roles from the operator's shell (docs/roles.md). They call the
// same functions as the HTTP routes and write the same audit rows, with the CLI as actor.
import { CLI_ACTOR } from '../../audit/audit-log.ts';
import { findProjectBySlug } from '../../projects/projects-sql.ts';
import { AppError } from '../../http/errors.ts';
import { changeUser, createUser, grantRole, resetPassword, revokeRole, type PasswordLink } from '../../teams/accounts.ts';
import { findUserByEmail, listUsers, rolesOf, type UserRow } from '../../teams/users-sql.ts';
import { formatTimestamp } from '../../protocol/timestamps.ts';
import type { Config } from '../../config/config.ts';
import { UsageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliContext, type CliServices } from '../context.ts';

const ROLE_NAMES = ['viewer', 'operator', 'admin'] as const;

/**
 * The link as a person opens it: PUBLIC_URL's origin, or in embedded mode the local server's
 * address; null when neither says where jtrace is reached (the bare path is printed then).
 */
export function linkUrl(config: Config, path: string): string | null {
  if (config.publicOrigin !== null) return `${config.publicOrigin}${path}`;
  if (config.databaseUrl !== null) return null;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}${path}`;
}

function linkLines(ctx: CliContext, link: PasswordLink, config: Config): void {
  const url = linkUrl(config, link.path);
  const until = formatTimestamp(link.expiresAt.getTime());
  if (url !== null) {
    ctx.io.out(`One-time link (valid until ${until}):`);
    ctx.io.out(url);
  } else {
    ctx.io.out(`One-time link (valid until ${until}); set PUBLIC_URL to have it printed whole, or open this path on your jtrace address:`);
    ctx.io.out(link.path);
  }
}

/** Runs fn with the user named by e-mail, or reports there is none (exit 1). */
async function withUser(ctx: CliContext, email: string, fn: (services: CliServices, user: UserRow) => Promise<number>): Promise<number> {
  return ctx.withServices(async (services) => {
    const user = await findUserByEmail(services.pool, email);
    if (user === null) {
      ctx.io.err(`no user has the e-mail ${email}`);
      return EXIT_FAILED;
    }
    return fn(services, user);
  });
}

/** AppErrors (a taken e-mail, a refused password) are the operator's to fix: exit 1 with the message. */
async function reported(ctx: CliContext, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    ctx.io.err(error.message);
    return EXIT_FAILED;
  }
}

export const userCreate: Command = {
  name: 'user:create',
  usage: 'user:create <email> [--name N] [--owner] [--password-stdin] [--json]',
  summary: 'create a user; prints a one-time set-password link, or sets the password read from standard input',
  spec: { positionals: ['email'], options: { '--name': { value: true }, '--owner': {}, '--password-stdin': {}, '--json': {} } },
  async run(ctx, args) {
    let password: string | undefined;
    if (args.flags.has('--password-stdin')) {
      if (ctx.io.readStdin === undefined) throw new UsageError('--password-stdin needs standard input');
      // One trailing newline is what `echo` and here-strings add; it is not part of the password.
      password = (await ctx.io.readStdin()).replace(/\r?\n$/, '');
    }
    const name = args.values.get('--name')?.[0];
    return reported(ctx, () =>
      ctx.withServices(async ({ pool, config }) => {
        const input = { email: args.positionals.email!, owner: args.flags.has('--owner'), ...(name !== undefined ? { displayName: name } : {}), ...(password !== undefined ? { password } : {}) };
        const created = await createUser(pool, input, CLI_ACTOR, Date.now());
        if (args.flags.has('--json')) {
          ctx.io.out(JSON.stringify({ id: created.user.id, email: created.user.email, owner: created.user.owner, link: created.link?.path ?? null, url: created.link ? linkUrl(config, created.link.path) : null }));
        } else {
          ctx.io.out(`created ${created.user.email}${created.user.owner ? ' (owner)' : ''}`);
          if (created.link) linkLines(ctx, created.link, config);
        }
        return EXIT_OK;
      }),
    );
  },
};

export const userList: Command = {
  name: 'user:list',
  usage: 'user:list [--json]',
  summary: 'list users with their state and roles',
  spec: { positionals: [], options: { '--json': {} } },
  async run(ctx, args) {
    return ctx.withServices(async ({ pool }) => {
      const users = await listUsers(pool);
      const rows = await Promise.all(users.map(async (u) => ({ user: u, roles: await rolesOf(pool, u.id) })));
      if (args.flags.has('--json')) {
        ctx.io.out(JSON.stringify(rows.map(({ user, roles }) => ({ id: user.id, email: user.email, name: user.displayName, state: user.state, owner: user.owner, roles: roles.map((r) => ({ project: r.slug, role: r.role })) }))));
        return EXIT_OK;
      }
      if (rows.length === 0) ctx.io.out('no users');
      for (const { user, roles } of rows) {
        const granted = roles.map((r) => `${r.slug}:${r.role}`).join(',') || '-';
        ctx.io.out(`${user.email}\t${user.state}${user.owner ? '\towner' : '\t-'}\t${granted}`);
      }
      return EXIT_OK;
    });
  },
};

function stateCommand(name: 'user:disable' | 'user:enable', state: 'disabled' | 'active'): Command {
  return {
    name,
    usage: `${name} <email>`,
    summary: state === 'disabled' ? 'disable a user: every session and token ends for good' : 'enable a disabled user (their old sessions and tokens stay ended)',
    spec: { positionals: ['email'] },
    async run(ctx, args) {
      return withUser(ctx, args.positionals.email!, async ({ pool }, user) => {
        await changeUser(pool, user.id, { state }, CLI_ACTOR, Date.now());
        ctx.io.out(`${state === 'disabled' ? 'disabled' : 'enabled'} ${user.email}`);
        return EXIT_OK;
      });
    },
  };
}

export const userDisable = stateCommand('user:disable', 'disabled');
export const userEnable = stateCommand('user:enable', 'active');

export const userGrant: Command = {
  name: 'user:grant',
  usage: 'user:grant <email> <project> <viewer|operator|admin>',
  summary: "give a user a role in a project (replaces the one they had)",
  spec: { positionals: ['email', 'project', 'role'] },
  async run(ctx, args) {
    const role = args.positionals.role!;
    if (!(ROLE_NAMES as readonly string[]).includes(role)) throw new UsageError('the role must be viewer, operator or admin');
    return withUser(ctx, args.positionals.email!, async ({ pool }, user) => {
      const project = await findProjectBySlug(pool, args.positionals.project!);
      if (project === null) {
        ctx.io.err(`no project with the slug ${args.positionals.project}`);
        return EXIT_FAILED;
      }
      await grantRole(pool, project.id, user.id, role as (typeof ROLE_NAMES)[number], CLI_ACTOR);
      ctx.io.out(`${user.email} is ${role} of ${project.slug}`);
      return EXIT_OK;
    });
  },
};

export const userRevoke: Command = {
  name: 'user:revoke',
  usage: 'user:revoke <email> <project>',
  summary: "remove a user's role in a project",
  spec: { positionals: ['email', 'project'] },
  async run(ctx, args) {
    return withUser(ctx, args.positionals.email!, async ({ pool }, user) => {
      const project = await findProjectBySlug(pool, args.positionals.project!);
      if (project === null || !(await revokeRole(pool, project.id, user.id, CLI_ACTOR))) {
        ctx.io.err(`${user.email} has no role in ${args.positionals.project}`);
        return EXIT_FAILED;
      }
      ctx.io.out(`${user.email} has no role in ${project.slug} any more`);
      return EXIT_OK;
    });
  },
};

export const userReset: Command = {
  name: 'user:reset',
  usage: 'user:reset <email> [--json]',
  summary: "clear a user's password, end their sessions and tokens, and print a one-time link to set a new one",
  spec: { positionals: ['email'], options: { '--json': {} } },
  async run(ctx, args) {
    return withUser(ctx, args.positionals.email!, async ({ pool, config }, user) => {
      const link = await resetPassword(pool, user.id, CLI_ACTOR, Date.now());
      if (args.flags.has('--json')) ctx.io.out(JSON.stringify({ email: user.email, link: link.path, url: linkUrl(config, link.path), expiresAt: formatTimestamp(link.expiresAt.getTime()) }));
      else linkLines(ctx, link, config);
      return EXIT_OK;
    });
  },
};
