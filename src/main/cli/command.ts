import type { Client } from '@temporalio/client';
import type { Config } from '../../config';
import type { Db } from '../../db';
import type { TenantDirectory } from '../../clusters/tenant-directory';
import type { Services } from '../container';

/** A cluster as a command sees it: its name, its pool and (made on first use) its services. */
export interface CommandCluster {
  name: string;
  db: Db;
  services(): Services;
}

interface CommandContext {
  config: Config;
  db: Db;
  temporal: Client;
  /** The services of the cluster the command runs on: `--cluster`, the cluster of `--tenant`, else the first. */
  services: Services;
  /** Every cluster, the first first (one, `main`, unless DATABASE_CLUSTERS lists several). */
  clusters: CommandCluster[];
  /** The directory of placements; null with one cluster. */
  directory: TenantDirectory | null;
  options: Record<string, string | boolean | undefined>;
  print(human: string, json: Record<string, unknown>): void;
}

export interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  required?: string[];
  /**
   * A command about the whole platform, not one tenant: with several clusters and neither --cluster nor --tenant, it
   * runs on every cluster in turn, each answer under its cluster's name (its exit code is the worst of them).
   */
  everyCluster?: true;
  /** False for a command that works on a database whatever its schema (the migrations themselves, Temporal's setup). */
  needsMigratedDatabase?: false;
  run(context: CommandContext): Promise<void>;
}

/** A command used wrongly: exit 2 with the message, as for a missing option. */
export class UsageError extends Error {}

export const text = (context: CommandContext, name: string): string => String(context.options[name]);
export const optional = (context: CommandContext, name: string): string | undefined =>
  typeof context.options[name] === 'string' ? String(context.options[name]) : undefined;

export function instantOption(context: CommandContext, name: string): Date | undefined {
  const value = optional(context, name);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${name} must be an ISO 8601 timestamp`);
  return date;
}
