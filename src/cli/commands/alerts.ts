import { listDeliveries, listRules, muteRule } from '../../alerts/rules.ts';
import { parseTimestamp } from '../../protocol/timestamps.ts';
import { UsageError, single } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK } from '../context.ts';
import { projectOrReport } from '../project-argument.ts';

export const alertList: Command = {
  name: 'alert:list',
  usage: 'alert:list <project> [--deliveries RULE-ID]',
  summary: 'list the alert rules of a project, or one rule\'s delivery log',
  spec: { positionals: ['project'], options: { '--deliveries': { value: true } } },
  async run(ctx, args) {
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const ruleId = single(args, '--deliveries');
      if (ruleId !== undefined) {
        const log = await listDeliveries(pool, project.id, ruleId);
        if (log === null) {
          ctx.io.err(`no alert rule ${ruleId} in ${project.slug}`);
          return EXIT_FAILED;
        }
        for (const d of log) ctx.io.out(`${d.at}  ${d.notification} ${d.windowStart}  attempt ${d.attempt}  ${d.outcome}${d.statusCode === null ? '' : ` ${d.statusCode}`}${d.error === null ? '' : ` ${d.error}`}`);
        if (log.length === 0) ctx.io.out('(no deliveries)');
        return EXIT_OK;
      }
      const rules = await listRules(pool, project.id);
      for (const r of rules) {
        const what = [r.kind, r.path, r.entityType && `entity ${r.entityType}`, r.environment && `in ${r.environment}`].filter(Boolean).join(' ');
        const muted = r.mutedUntil === null ? '' : `  muted until ${r.mutedUntil}`;
        ctx.io.out(`${r.id}  ${r.name}  ${what}  >= ${r.threshold.count} in ${r.threshold.windowMinutes} min  ${r.channel.type} ${r.channel.url}  ${r.state}${muted}`);
      }
      if (rules.length === 0) ctx.io.out('(no alert rules)');
      return EXIT_OK;
    });
  },
};

export const alertMute: Command = {
  name: 'alert:mute',
  usage: 'alert:mute <project> <rule-id> (--until TIMESTAMP | --unmute)',
  summary: 'mute an alert rule until a time (ISO 8601 with a time zone), or unmute it',
  spec: { positionals: ['project', 'ruleId'], options: { '--until': { value: true }, '--unmute': {} } },
  async run(ctx, args) {
    const until = single(args, '--until');
    const unmute = args.flags.has('--unmute');
    if ((until === undefined) === !unmute) throw new UsageError('give either --until or --unmute');
    const ms = until === undefined ? null : parseTimestamp(until);
    if (until !== undefined && ms === null) throw new UsageError('--until must be an ISO 8601 timestamp with a time zone');
    return ctx.withServices(async ({ pool }) => {
      const project = await projectOrReport(pool, ctx.io, args.positionals.project!);
      if (!project) return EXIT_FAILED;
      const rule = await muteRule(pool, project.id, args.positionals.ruleId!, ms === null ? null : new Date(ms));
      if (rule === null) {
        ctx.io.err(`no alert rule ${args.positionals.ruleId} in ${project.slug}`);
        return EXIT_FAILED;
      }
      ctx.io.out(rule.mutedUntil === null ? `${rule.name}: not muted` : `${rule.name}: muted until ${rule.mutedUntil}`);
      return EXIT_OK;
    });
  },
};
