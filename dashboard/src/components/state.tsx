import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Resource<T> =
  | { status: 'loading'; data?: T; reload: () => void }
  | { status: 'ready'; data: T; reload: () => void }
  | { status: 'error'; error: string; data?: T; reload: () => void };

/**
 * Loads data for a page and reloads it when `deps` change; `refreshMs` polls while the page is open.
 * An answer that arrives after a newer request started is dropped. Data loaded for other `deps` than
 * the current ones is reported as loading from the very render in which they changed (the effect that
 * reloads runs a moment later): a pager never shows a new page number over the old page's rows as if
 * they were settled.
 */
export function useResource<T>(load: () => Promise<T>, deps: unknown[], refreshMs?: number): Resource<T> {
  const depsKey = JSON.stringify(deps);
  const [state, setState] = useState<{ status: 'loading' | 'ready' | 'error'; data?: T; error?: string; depsKey?: string }>({
    status: 'loading',
  });
  const generation = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const currentKey = useRef(depsKey);
  currentKey.current = depsKey;

  const run = useCallback((quiet: boolean) => {
    const mine = ++generation.current;
    const key = currentKey.current;
    if (!quiet)
      setState((previous) => ({ status: 'loading', depsKey: key, ...(previous.data !== undefined ? { data: previous.data } : {}) }));
    loader.current().then(
      (data) => mine === generation.current && setState({ status: 'ready', data, depsKey: key }),
      (error: Error) =>
        mine === generation.current &&
        setState((previous) => ({
          status: 'error',
          error: error.message,
          depsKey: key,
          ...(previous.data !== undefined ? { data: previous.data } : {}),
        })),
    );
  }, []);

  useEffect(() => {
    run(false);
    if (!refreshMs) return undefined;
    const timer = window.setInterval(() => run(true), refreshMs);
    return () => window.clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, refreshMs]);

  const reload = useCallback(() => run(false), [run]);
  if (state.depsKey !== depsKey) return { status: 'loading', ...(state.data !== undefined ? { data: state.data } : {}), reload };
  if (state.status === 'ready') return { status: 'ready', data: state.data as T, reload };
  if (state.status === 'error')
    return {
      status: 'error',
      error: state.error ?? 'Something went wrong.',
      ...(state.data !== undefined ? { data: state.data } : {}),
      reload,
    };
  return { status: 'loading', ...(state.data !== undefined ? { data: state.data } : {}), reload };
}

export function Loading(props: { what?: string }) {
  return (
    <p class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {props.what ?? ''}…
    </p>
  );
}

export function ErrorBox(props: { message: string; onRetry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <p>{props.message}</p>
      {props.onRetry ? (
        <button type="button" class="button secondary" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="state state-empty">{props.children}</div>;
}

/** Loading, error or the content; an error keeps the last data shown below it when there is some. */
export function Loaded<T>(props: { resource: Resource<T>; what?: string; children: (data: T) => ComponentChildren }) {
  const { resource } = props;
  if (resource.status === 'error') {
    return (
      <>
        <ErrorBox message={resource.error} onRetry={resource.reload} />
        {resource.data !== undefined ? props.children(resource.data) : null}
      </>
    );
  }
  if (resource.data === undefined) return <Loading {...(props.what ? { what: props.what } : {})} />;
  return <div aria-busy={resource.status === 'loading'}>{props.children(resource.data)}</div>;
}

/** A short-lived success or failure message after an action. */
export function Notice(props: { notice: { kind: 'success' | 'error'; text: string } | null }) {
  if (!props.notice) return null;
  return (
    <p class={`notice notice-${props.notice.kind}`} role={props.notice.kind === 'error' ? 'alert' : 'status'}>
      {props.notice.text}
    </p>
  );
}
