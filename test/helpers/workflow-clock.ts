import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';

/**
 * The durations of the timers a workflow started, in order, from its history: exact whatever the machine's speed,
 * where a pause is a workflow timer (an activity's retry leaves none: see the clocks below).
 */
export function timerDurationsMs(history: temporal.api.history.v1.IHistory): number[] {
  return (history.events ?? []).flatMap((event) =>
    event.timerStartedEventAttributes ? [tsToMs(event.timerStartedEventAttributes.startToFireTimeout)] : [],
  );
}

/**
 * What reading the clocks may be off by (two local reads of the same wall clock, milliseconds apart), far below
 * the second or more by which a wrong pause differs from the right one.
 */
export const CLOCK_READING_TOLERANCE_MS = 250;

/** The time-skipping server's clock, read once between two readings of the real clock. */
export interface ClockReading {
  workflowMs: number;
  realBeforeMs: number;
  realAfterMs: number;
}

export async function readClocks(env: TestWorkflowEnvironment): Promise<ClockReading> {
  const realBeforeMs = Date.now();
  const workflowMs = await env.currentTimeMs();
  return { workflowMs, realBeforeMs, realAfterMs: Date.now() };
}

/**
 * The pause between two readings, as far as it can be told whatever the machine's speed. The server's clock is
 * real time plus the time it skipped, so between two calls it advances by the pause plus the real time the
 * activities, workflow tasks and scheduling took: `advancedMs` is at least the pause. What the server skipped is
 * at most the pause; `skippedMs` is the least it can have skipped (the advance less the most real time that can
 * have passed between the two readings), so it is at most the pause however slow the machine.
 */
export interface Pause {
  advancedMs: number;
  skippedMs: number;
}

export function pauseBetween(from: ClockReading, to: ClockReading): Pause {
  const advancedMs = to.workflowMs - from.workflowMs;
  return { advancedMs, skippedMs: advancedMs - (to.realAfterMs - from.realBeforeMs) };
}

export function pausesBetween(readings: ClockReading[]): Pause[] {
  return readings.slice(1).map((reading, index) => pauseBetween(readings[index]!, reading));
}

const shown = (pauses: Pause[]): string => pauses.map((pause) => `${pause.advancedMs} (skipped ${pause.skippedMs})`).join(', ');

/**
 * Each pause between successive readings was `expectedMs[i]`: never shorter (by the workflow's clock) and never
 * longer (by the time the server skipped).
 */
export function assertPauses(readings: ClockReading[], expectedMs: number[], what: string): void {
  const pauses = pausesBetween(readings).slice(0, expectedMs.length);
  assert.equal(pauses.length, expectedMs.length, `${what}: ${pauses.length} pauses`);
  for (const [index, pause] of pauses.entries()) {
    const expected = expectedMs[index]!;
    assert.ok(
      pause.advancedMs >= expected && pause.skippedMs <= expected + CLOCK_READING_TOLERANCE_MS,
      `${what}: pause ${index + 1} was ${pause.advancedMs} ms with ${pause.skippedMs} ms skipped, expected ${expected} ms (${shown(pauses)})`,
    );
  }
}

/** The pause between two readings was between `atLeastMs` (by the workflow's clock) and `atMostMs` (by the time skipped). */
export function assertPauseWithin(
  from: ClockReading,
  to: ClockReading,
  bounds: { atLeastMs: number; atMostMs: number },
  what: string,
): void {
  const pause = pauseBetween(from, to);
  assert.ok(
    pause.advancedMs >= bounds.atLeastMs && pause.skippedMs <= bounds.atMostMs + CLOCK_READING_TOLERANCE_MS,
    `${what}: ${pause.advancedMs} ms with ${pause.skippedMs} ms skipped, expected ${bounds.atLeastMs} to ${bounds.atMostMs} ms`,
  );
}

/** No pause between successive readings was longer than `maxMs` (by the time the server skipped). */
export function assertPausesAtMost(readings: ClockReading[], maxMs: number, what: string): void {
  const pauses = pausesBetween(readings);
  assert.ok(
    pauses.every((pause) => pause.skippedMs <= maxMs + CLOCK_READING_TOLERANCE_MS),
    `${what}: pauses at most ${maxMs} ms, were ${shown(pauses)}`,
  );
}
