import { useState } from 'preact/hooks';
import { api } from '../api';
import type { CreatedUser, TenantUser, TenantUsers, UserRole } from '../api-types';
import { Badge, Field, PageTitle, ShownOnce, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan, useSession } from '../session';

const ROLES: UserRole[] = ['viewer', 'operator', 'approver', 'admin'];

function RoleChanger(props: { user: TenantUser; onChanged: (text: string) => void }) {
  const [role, setRole] = useState<UserRole>(props.user.Role);
  return (
    <div class="inline-form">
      <label class="visually-hidden" for={`role-${props.user.ID}`}>
        Role of {props.user.Email}
      </label>
      <select id={`role-${props.user.ID}`} value={role} onChange={(event) => setRole(event.currentTarget.value as UserRole)}>
        {ROLES.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
      <ConfirmButton
        small
        label="Save role"
        disabled={role === props.user.Role}
        title={`Make ${props.user.Email} ${role === 'admin' ? 'an' : 'a'} ${role}?`}
        description={<p>The new role applies to their very next request.</p>}
        action={async () => {
          await api('PATCH', `/auth/users/${props.user.ID}`, { body: { role } });
          props.onChanged(`${props.user.Email} is now ${role === 'admin' ? 'an' : 'a'} ${role}.`);
        }}
      />
    </div>
  );
}

export function UsersPage() {
  const isAdmin = useCan('manage_access');
  const session = useSession();
  const users = useResource(() => (isAdmin ? api<TenantUsers>('GET', '/auth/users') : Promise.resolve({ users: [] })), [isAdmin]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<UserRole>('operator');
  const [created, setCreated] = useState<CreatedUser | null>(null);
  const [reset, setReset] = useState<{ email: string; token: string; expiresAt: string } | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const done = (text: string) => {
    setNotice({ kind: 'success', text });
    users.reload();
  };

  if (!isAdmin) {
    return (
      <>
        <PageTitle title="Users" />
        <ErrorBox message="Only an admin manages users." />
      </>
    );
  }

  return (
    <>
      <PageTitle title="Users" />
      <p class="muted">
        Roles: a <strong>viewer</strong> reads everything; an <strong>operator</strong> also decides KYC reviews, suspends customers,
        assigns misdirected payments, replays webhooks and pays settlements; an <strong>approver</strong> reads and approves payouts waiting
        for approval; an <strong>admin</strong> does all of that, sets the rules that move money (split rules, sweeps, the approval policy,
        KYC limits) and manages users, API keys, the webhook signing secret and webhook endpoints. Nobody approves a payout they made.
        Sessions end after {Math.round(session.idleTimeoutSeconds / 60)} minutes without activity.
      </p>
      <Notice notice={notice} />
      {created ? (
        <ShownOnce label={`First password of ${created.user.Email}`} value={created.password} onDone={() => setCreated(null)} />
      ) : null}
      {reset ? (
        <ShownOnce
          label={`Password reset token of ${reset.email}, usable once until ${when(reset.expiresAt)}`}
          value={reset.token}
          onDone={() => setReset(null)}
        />
      ) : null}
      <form
        class="toolbar"
        aria-label="Add a user"
        onSubmit={(event) => {
          event.preventDefault();
        }}
      >
        <Field label="Email of the new user">
          <input type="email" name="email" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </Field>
        <Field label="Role">
          <select name="role" value={role} onChange={(event) => setRole(event.currentTarget.value as UserRole)}>
            {ROLES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </Field>
        <ConfirmButton
          label="Add user"
          title={`Add ${email || 'this user'} as ${role === 'admin' ? 'an' : 'a'} ${role}?`}
          disabled={!email.includes('@')}
          description={<p>A password is generated and shown once, for you to hand over securely.</p>}
          action={async () => {
            const made = await api<CreatedUser>('POST', '/auth/users', { body: { email, role } });
            setCreated(made);
            setEmail('');
            done(`${made.user.Email} added.`);
          }}
        />
      </form>
      <Loaded resource={users} what="users">
        {(data) => (
          <TableWrap label="Users">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last active</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {data.users.map((user) => {
                  const self = user.ID === session.user.id;
                  return (
                    <tr key={user.ID}>
                      <td>
                        {user.Email} {self ? <span class="muted small">(you)</span> : null}
                      </td>
                      <td>{self ? user.Role : <RoleChanger user={user} onChanged={done} />}</td>
                      <td>{user.Disabled ? <Badge status="disabled" /> : <Badge status="active" />}</td>
                      <td>{when(user.LastSeenAt)}</td>
                      <td class="row-actions">
                        {self ? (
                          <span class="muted small">Use “Sign out everywhere” above for your own sessions.</span>
                        ) : (
                          <>
                            {user.Disabled ? (
                              <ConfirmButton
                                small
                                label="Enable"
                                title={`Enable ${user.Email}?`}
                                description={<p>They can sign in again.</p>}
                                action={async () => {
                                  await api('POST', `/auth/users/${user.ID}/enable`);
                                  done(`${user.Email} enabled.`);
                                }}
                              />
                            ) : (
                              <ConfirmButton
                                small
                                danger
                                label="Disable"
                                title={`Disable ${user.Email}?`}
                                description={<p>They are signed out everywhere and cannot sign in until enabled again.</p>}
                                action={async () => {
                                  await api('POST', `/auth/users/${user.ID}/disable`);
                                  done(`${user.Email} disabled.`);
                                }}
                              />
                            )}
                            <ConfirmButton
                              small
                              label="Reset password"
                              title={`Issue a password reset for ${user.Email}?`}
                              description={
                                <p>
                                  A one-time token is shown once, for you to hand over; with it they set a new password at
                                  /dashboard/reset-password, which signs them out everywhere. Their password stays until then; an earlier
                                  token stops working.
                                </p>
                              }
                              action={async () => {
                                const issued = await api<{ token: string; expiresAt: string }>(
                                  'POST',
                                  `/auth/users/${user.ID}/password-reset`,
                                );
                                setReset({ email: user.Email, ...issued });
                                done(`Reset token issued for ${user.Email}.`);
                              }}
                            />
                            <ConfirmButton
                              small
                              label="Reset two-factor"
                              title={`Reset the two-factor sign-in of ${user.Email}?`}
                              description={
                                <p>
                                  For a lost phone: their authenticator app and recovery codes stop working and they are signed out
                                  everywhere. They sign in with their password and, where it is required of their role, set up an app again.
                                </p>
                              }
                              action={async () => {
                                const { sessionsEnded } = await api<{ sessionsEnded: number }>(
                                  'POST',
                                  `/auth/users/${user.ID}/two-factor/reset`,
                                );
                                done(`${user.Email}: two-factor sign-in reset, ${sessionsEnded} session(s) ended.`);
                              }}
                            />
                            <ConfirmButton
                              small
                              label="Sign out"
                              title={`Sign ${user.Email} out everywhere?`}
                              description={<p>Every session of this user ends now; they can sign in again.</p>}
                              action={async () => {
                                const { sessionsEnded } = await api<{ sessionsEnded: number }>('POST', `/auth/users/${user.ID}/sign-out`);
                                done(`${user.Email}: ${sessionsEnded} session(s) ended.`);
                              }}
                            />
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
    </>
  );
}
