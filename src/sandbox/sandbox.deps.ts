import type { Config } from '../config';
import type { Logger } from '../logger';
import type { SandboxState } from './sandbox.state';
import type { Scheduler } from './scheduler';
import type { TransferLifecycle } from './transfer-lifecycle';
import type { WebhookSender } from './webhook-sender';

export interface SandboxDeps {
  config: Config;
  logger: Logger;
  state: SandboxState;
  scheduler: Scheduler;
  webhooks: WebhookSender;
  transfers: TransferLifecycle;
}
