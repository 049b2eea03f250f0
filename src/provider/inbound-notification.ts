import type { Kobo } from '../money';

/** What a notification says about itself, each as far as it could be read (null when absent); stored with the event. */
export interface NotificationFacts {
  requestId: string | null;
  eventType: string | null;
  transactionId: string | null;
  aliasAccountRef: string | null;
  senderName: string | null;
  /** The body as parsed, kept as received. */
  payload: unknown;
}

/** A payment into a virtual account, checked and ready to credit. */
export interface PaymentNotice {
  accountRef: string;
  gross: Kobo;
  fee: Kobo;
  senderName: string;
  narration: string;
  transactionId: string;
}

/** How a payout ended, in the words the settlement's signal uses. */
export type PayoutNoticeType = 'payout_success' | 'payout_failed' | 'payout_refund';

/** The amounts as a payment's body gives them, unchecked beyond being kobo that can be stored (null otherwise). */
export interface StatedAmounts {
  gross: Kobo | null;
  fee: Kobo | null;
}

/** A payment received: `payment`, or why it cannot be credited. */
export interface PaymentNotification {
  kind: 'payment';
  facts: NotificationFacts;
  payment: PaymentNotice | { error: string };
  stated: StatedAmounts;
}

/** How a payout ended; `eventId` is the notification's own id, `providerRef` the transfer's reference. */
export interface PayoutNotification {
  kind: 'payout';
  facts: NotificationFacts;
  type: PayoutNoticeType;
  providerRef: string;
  eventId: string;
}

export type InboundNotification =
  /** Not a notification at all (unreadable, or nested past any real one): `error` says which. */
  | { kind: 'unreadable'; error: string }
  /** Signed with none of our secrets: anyone's input. */
  | { kind: 'unverified'; facts: NotificationFacts }
  | PaymentNotification
  | PayoutNotification
  /** Signed, and about something the service does not act on. */
  | { kind: 'other'; facts: NotificationFacts };

/** Reads a header of the request by name: undefined when absent or empty. */
export type HeaderReader = (name: string) => string | undefined;

/** The provider's webhooks, verified and read into the service's terms. */
export interface ProviderNotifications {
  /** Never throws: whatever arrives is one of the kinds above. */
  read(rawBody: Buffer, header: HeaderReader): InboundNotification;
}
