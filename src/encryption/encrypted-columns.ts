/** Every column holding an AES-GCM ciphertext; `crypto:reencrypt` walks them all. */
export const ENCRYPTED_COLUMNS = [
  { table: 'customers', column: 'bvn_enc' },
  { table: 'customers', column: 'nin_enc' },
  { table: 'tenants', column: 'webhook_secret_enc' },
  { table: 'webhook_endpoints', column: 'secret_enc' },
  { table: 'webhook_endpoints', column: 'previous_secret_enc' },
  { table: 'totp_enrolments', column: 'secret_enc' },
] as const;

export type EncryptedColumn = (typeof ENCRYPTED_COLUMNS)[number];

/** The associated data of a ciphertext: its column and row, so a copy pasted elsewhere does not decrypt. */
export function encryptionContext(column: EncryptedColumn, rowId: string): string {
  return `${column.table}.${column.column}:${rowId}`;
}

export const [BVN_COLUMN, NIN_COLUMN, WEBHOOK_SECRET_COLUMN, ENDPOINT_SECRET_COLUMN, ENDPOINT_PREVIOUS_SECRET_COLUMN, TOTP_SECRET_COLUMN] =
  ENCRYPTED_COLUMNS;
