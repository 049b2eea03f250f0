import { accessSync, constants } from 'node:fs';
import { z } from 'zod';
import { parseDuration, parseDurationList } from '../duration';

/** The kinds of value the environment variables hold, each parsed and checked the same way everywhere. */

export const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `expected a duration such as 500ms, 20s, 2m or 1h, got "${text}"` });
        return z.NEVER;
      }
      return ms;
    });

export const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const list = parseDurationList(text);
      if (list === null) {
        ctx.addIssue({ code: 'custom', message: `expected comma-separated durations such as 2m,5m,11m, got "${text}"` });
        return z.NEVER;
      }
      return list;
    });

export const integer = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** Unset means "the Temporal SDK's own default" (it sizes some of them to the machine). */
export const optionalInteger = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((text) => ['true', '1', 'yes'].includes(text));

export const optionalFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .optional()
  .transform((text) => (text === undefined ? undefined : ['true', '1', 'yes'].includes(text)));

/** A path this process can read now: a missing certificate stops the start with its variable named. */
export const readableFile = z.string().refine(
  (path) => {
    try {
      accessSync(path, constants.R_OK);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'expected a readable file' },
);

export const url = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);

/** A host only this machine can reach (a listen address, or a server running beside this process). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Adds an issue naming `variable`: how production checks refuse a setting. */
export type Refuse = (variable: string, message: string) => void;
