/**
 * What a move needs from the clusters' runtime, taken as given: the directory of tenants' clusters and each
 * cluster's workflows. The runtime implements them; a move only calls them, so it runs the same from the CLI, a
 * test or a script.
 */

/** The directory: which cluster serves each tenant, and the pause of a tenant's writes while it moves. */
export interface TenantDirectoryPart {
  clusterOf(tenantId: string): Promise<string>;
  /** Pauses the tenant's writes (the API answers it 503 with Retry-After). Again on a paused tenant: nothing changes. */
  beginMove(tenantId: string): Promise<void>;
  /** Ends the pause with the tenant on `cluster`: the new one after a move, the old one after a move that failed. */
  finishMove(tenantId: string, cluster: string): Promise<void>;
}

/** The tenant's workflows on one cluster (its task queue). */
export interface TenantWorkflowsPart {
  /**
   * Terminates the tenant's running workflows there; the ids it stopped. Nothing running: nothing to do. It runs
   * after the fence, so it finds them whatever the fence's mark (an open settlement marked moved out is still open).
   */
  stopRunning(tenantId: string): Promise<string[]>;
  /**
   * Starts a run for each of the tenant's unfinished jobs there, from the database: a settlement pending or
   * processing resumes at the attempt its rows hold, following the same provider reference. The number started.
   */
  restartUnfinished(tenantId: string): Promise<number>;
}
