import type { Client } from '@temporalio/client';

/** Deletes the Schedules a test's processes made on the lane's Temporal (one already gone is skipped), then closes the client. */
export async function deleteSchedulesAndClose(temporal: Client, scheduleIds: Iterable<string>): Promise<void> {
  for (const scheduleId of scheduleIds)
    await temporal.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => undefined);
  await temporal.connection.close();
}
