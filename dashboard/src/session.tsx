import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect } from 'preact/hooks';
import { api } from './api';
import type { Permission, SessionInfo } from './api-types';

export const SessionContext = createContext<SessionInfo | null>(null);

export function useSession(): SessionInfo {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Whether the signed-in user's role holds `permission` (the server checks it again). */
export function useCan(permission: Permission): boolean {
  return useSession().user.permissions.includes(permission);
}

const ACTIVITY_EVENTS = ['pointerdown', 'keydown', 'scroll', 'touchstart'] as const;

/**
 * Signs the user out after the idle timeout without any input, even while a page keeps polling in
 * the background (the server's own idle limit covers closed tabs).
 */
export function IdleTimeout(props: { seconds: number; onIdle: () => void; children: ComponentChildren }) {
  const { seconds, onIdle } = props;
  useEffect(() => {
    let last = Date.now();
    const touch = () => {
      last = Date.now();
    };
    for (const name of ACTIVITY_EVENTS) window.addEventListener(name, touch, { passive: true });
    const timer = window.setInterval(() => {
      if (Date.now() - last < seconds * 1000) return;
      window.clearInterval(timer);
      api('POST', '/auth/logout')
        .catch(() => undefined)
        .finally(onIdle);
    }, 5_000);
    return () => {
      window.clearInterval(timer);
      for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, touch);
    };
  }, [seconds, onIdle]);
  return <>{props.children}</>;
}
