import type { Db } from './db';
import type { Logger } from './logger';
import { withTimeout } from './timeout';

/** The part of a pg connection a listener uses (knex hands out untyped raw connections). */
interface ListeningConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
}

export interface NotificationListener {
  close(): Promise<void>;
}

const RECONNECT_MS = 1_000;
/** A connection can die without a word (a dropped route, a frozen server): it is asked for a reply this often. */
const PROBE_EVERY_MS = 5_000;
const PROBE_TIMEOUT_MS = 3_000;

/**
 * LISTENs on a Postgres channel over a connection of its own (outside the pool: a pooled connection
 * would be handed to queries and lose its LISTEN). `onLive(true)` once LISTEN holds, so every later
 * notification arrives; `onLive(false)` as soon as the connection is lost or stops answering, when
 * notifications may go unseen until it is back (retried every second).
 */
export function listenForNotifications(deps: {
  db: Db;
  channel: string;
  logger: Logger;
  onNotification(): void;
  onLive(live: boolean): void;
}): NotificationListener {
  const { db, channel, logger, onNotification, onLive } = deps;
  let current: ListeningConnection | null = null;
  let closed = false;
  let reconnect: NodeJS.Timeout | undefined;

  function lost(connection: ListeningConnection, error?: Error): void {
    if (current !== connection) return;
    current = null;
    onLive(false);
    void db.client.destroyRawConnection(connection).catch(() => undefined);
    if (closed) return;
    logger.warn({ err: error, channel }, 'notification listener lost its connection; reconnecting');
    retryLater();
  }

  function retryLater(): void {
    reconnect = setTimeout(connect, RECONNECT_MS);
    reconnect.unref();
  }

  async function connect(): Promise<void> {
    let connection: ListeningConnection;
    try {
      connection = (await db.client.acquireRawConnection()) as ListeningConnection;
    } catch (error) {
      if (!closed) retryLater();
      logger.warn({ err: error, channel }, 'notification listener could not connect; retrying');
      return;
    }
    if (closed) {
      await db.client.destroyRawConnection(connection).catch(() => undefined);
      return;
    }
    current = connection;
    connection.on('notification', (message) => {
      if (message.channel === channel) onNotification();
    });
    connection.on('error', (error) => lost(connection, error));
    connection.on('end', () => lost(connection));
    try {
      await connection.query(`LISTEN ${channel}`);
    } catch (error) {
      lost(connection, error as Error);
      return;
    }
    if (current === connection) onLive(true);
  }

  const probe = setInterval(() => {
    const connection = current;
    if (!connection) return;
    withTimeout(connection.query('SELECT 1'), PROBE_TIMEOUT_MS, 'notification listener probe').catch((error: Error) =>
      lost(connection, error),
    );
  }, PROBE_EVERY_MS);
  probe.unref();
  void connect();

  return {
    async close() {
      closed = true;
      clearInterval(probe);
      clearTimeout(reconnect);
      const connection = current;
      current = null;
      onLive(false);
      if (connection) await db.client.destroyRawConnection(connection).catch(() => undefined);
    },
  };
}
