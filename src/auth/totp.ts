import { randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import { toString as qrCodeSvg } from 'qrcode';
import { sha256 } from '../crypto';

/** The issuer an authenticator app shows beside the user's email. */
const TOTP_ISSUER = 'NUBAN ledger';

/** RFC 6238's defaults, which every authenticator app uses: 6 digits, 30-second steps, SHA-1. */
const TOTP_PERIOD_SECONDS = 30;

/** A code of the step before or after the server's is accepted too: a phone's clock drifts, and typing takes time. */
const TOTP_TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;

export function newTotpSecret(): string {
  return generateSecret();
}

/** The otpauth:// URI an authenticator app reads (from the QR code, or typed in as the secret alone). */
export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: email, secret, period: TOTP_PERIOD_SECONDS });
}

/** The URI as an SVG QR code (drawn with fill and stroke attributes only, so a strict CSP shows it). */
export function totpQrCodeSvg(uri: string): Promise<string> {
  return qrCodeSvg(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
}

/**
 * The time step `code` was made for, if it is the secret's code at `atMs` or one step either side; else
 * null. The caller refuses a step a code was accepted for already (a replay).
 */
export async function totpCodeStep(secret: string, code: string, atMs: number): Promise<number | null> {
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(atMs / 1000),
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_TOLERANCE_SECONDS,
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

/** Recovery codes: 16 characters of a 32-letter alphabet without look-alikes (80 bits each), shown in groups of four. */
const RECOVERY_CODE_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_COUNT = 10;

export function newRecoveryCode(): string {
  const letters = Array.from({ length: 16 }, () => RECOVERY_CODE_ALPHABET[randomInt(RECOVERY_CODE_ALPHABET.length)]!);
  return [0, 4, 8, 12].map((start) => letters.slice(start, start + 4).join('')).join('-');
}

/** Only the hash is kept: case, spaces and dashes as the user types them do not matter. */
export function hashRecoveryCode(code: string): Buffer {
  return sha256(code.toLowerCase().replace(/[\s-]/g, ''));
}
