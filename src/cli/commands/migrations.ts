import { MigrationLockedError, migrate, unlockMigrations } from '../../db/migrate.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK } from '../context.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'migrate',
  summary: 'apply pending schema migrations (before a deploy)',
  spec: { positionals: [] },
  async run(ctx) {
    return ctx.withServices(async ({ pool }) => {
      try {
        const applied = await migrate(pool);
        if (applied.length === 0) ctx.io.out('the schema is up to date');
        for (const migration of applied) ctx.io.out(`applied ${String(migration.version).padStart(4, '0')}_${migration.name}`);
        return EXIT_OK;
      } catch (error) {
        if (error instanceof MigrationLockedError) {
          ctx.io.err(error.message);
          return EXIT_FAILED;
        }
        throw error;
      }
    });
  },
};

export const migrateUnlock: Command = {
  name: 'migrate:unlock',
  usage: 'migrate:unlock',
  summary: 'release a migration lock left by a migrator that died',
  spec: { positionals: [] },
  async run(ctx) {
    return ctx.withServices(async ({ pool }) => {
      const released = await unlockMigrations(pool);
      ctx.io.out(released ? 'released the migration lock' : 'the migration lock was not held');
      return EXIT_OK;
    });
  },
};
