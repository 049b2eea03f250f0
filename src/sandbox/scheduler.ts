/** Every timer the sandbox starts goes through here, so reset and close() leave nothing running. */
export class Scheduler {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();

  /** Runs task after ms unless cancelled first. */
  after(ms: number, task: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      task();
    }, ms);
    this.pending.set(timer, () => undefined);
  }

  /** Resolves after ms, or at once when cancelled, so a waiting request is never left hanging. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve();
      }, ms);
      this.pending.set(timer, resolve);
    });
  }

  cancelAll(): void {
    for (const [timer, onCancel] of this.pending) {
      clearTimeout(timer);
      onCancel();
    }
    this.pending.clear();
  }
}
