import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors';

const KEY_LENGTH = 64;

interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt guidance (Password Storage Cheat Sheet): N=2^17, r=8, p=1, about 128 MiB per hash. */
const costFor = (logN: number): ScryptCost => ({ N: 2 ** logN, r: 8, p: 1 });

/** A stored hash naming a larger cost than this is refused rather than allowed to take the memory. */
const MAX_N = 2 ** 20;

/** scrypt needs 128·N·r bytes (plus a little); Node refuses anything over `maxmem`, 32 MiB by default. */
const memoryFor = (cost: ScryptCost): number => 128 * cost.N * cost.r + 1024 * 1024 * cost.p;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem: memoryFor(cost) }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function encode(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function decode(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash) return null;
  if (
    ![cost.N, cost.r, cost.p].every(Number.isSafeInteger) ||
    cost.N < 2 ||
    cost.N > MAX_N ||
    cost.r < 1 ||
    cost.r > 32 ||
    cost.p < 1 ||
    cost.p > 16
  )
    return null;
  return { cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

const dummyHash = (cost: ScryptCost): string => encode(cost, Buffer.alloc(16), Buffer.alloc(KEY_LENGTH));

class PasswordHashingBusyError extends AppError {
  constructor() {
    super('unavailable', 'busy', 'too many sign-ins in progress, retry shortly', undefined, 1);
  }
}

/**
 * scrypt runs on libuv's thread pool (4 threads by default, shared with DNS and file reads) and each
 * hash takes 128 MiB: at most `concurrency` hashes run at once, at most `maxWaiting` wait, and beyond
 * that a caller is turned away (503) instead of queueing memory and time without bound.
 */
export function createPasswordHasher(options: { logN: number; concurrency: number; maxWaiting: number }) {
  const cost = costFor(options.logN);
  let running = 0;
  const waiting: Array<() => void> = [];

  async function bounded<T>(work: () => Promise<T>): Promise<T> {
    if (running >= options.concurrency) {
      if (waiting.length >= options.maxWaiting) throw new PasswordHashingBusyError();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running += 1;
    }
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  }

  return {
    /** Verified when the email is unknown, so a wrong email costs the same time as a wrong password. */
    dummyHash: dummyHash(cost),

    /** "scrypt$N$r$p$salt$hash": the cost travels with the hash, so raising it never breaks stored ones. */
    hash(password: string): Promise<string> {
      return bounded(async () => {
        const salt = randomBytes(16);
        return encode(cost, salt, await derive(password, salt, cost));
      });
    },

    async verify(password: string, stored: string): Promise<boolean> {
      const parsed = decode(stored);
      if (!parsed) return false;
      const actual = await bounded(() => derive(password, parsed.salt, parsed.cost));
      return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
    },

    /** A hash made at a lower cost than today's: rehashed at the next successful sign-in. */
    isOutdated(stored: string): boolean {
      const parsed = decode(stored);
      return parsed !== null && (parsed.cost.N !== cost.N || parsed.cost.r !== cost.r || parsed.cost.p !== cost.p);
    },
  };
}
