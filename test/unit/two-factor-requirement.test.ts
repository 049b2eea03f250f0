import assert from 'node:assert/strict';
import { generate } from 'otplib';
import { ROLES_REQUIRING_TWO_FACTOR, sessionStage } from '../../src/auth/two-factor-requirement';
import { hashRecoveryCode, newRecoveryCode, newTotpSecret, totpCodeStep } from '../../src/auth/totp';
import { USER_ROLES } from '../../src/http/roles';

describe('two-factor requirement and codes', () => {
  it('applies the tenant requirement to the roles that move money or administer, never to a viewer', () => {
    assert.deepEqual([...ROLES_REQUIRING_TWO_FACTOR], ['operator', 'approver', 'admin']);
    const cases = USER_ROLES.flatMap((role) =>
      [true, false].flatMap((enrolled) =>
        [true, false].map((tenantRequiresTwoFactor) => ({
          role,
          enrolled,
          tenantRequiresTwoFactor,
          stage: sessionStage({ awaitingSecondFactor: false, role, enrolled, tenantRequiresTwoFactor }),
        })),
      ),
    );
    for (const { role, enrolled, tenantRequiresTwoFactor, stage } of cases)
      assert.equal(
        stage,
        tenantRequiresTwoFactor && !enrolled && role !== 'viewer' ? 'must_enrol' : 'signed_in',
        `${role}, enrolled ${enrolled}, required ${tenantRequiresTwoFactor}`,
      );
    for (const role of USER_ROLES)
      assert.equal(sessionStage({ awaitingSecondFactor: true, role, enrolled: true, tenantRequiresTwoFactor: true }), 'awaiting_code');
  });

  it("accepts a code of the step before, at and after the server's, and names its step", async () => {
    const secret = newTotpSecret();
    const at = 1_800_000_000_000;
    const step = at / 1000 / 30;
    const code = await generate({ secret, epoch: at / 1000 });
    assert.equal(await totpCodeStep(secret, code, at), step);
    assert.equal(await totpCodeStep(secret, code, at + 30_000), step);
    assert.equal(await totpCodeStep(secret, code, at - 30_000), step);
    assert.equal(await totpCodeStep(secret, code, at + 60_000), null);
    assert.equal(await totpCodeStep(newTotpSecret(), code, at), null);
  });

  it('makes recovery codes of 80 bits and hashes them whatever the case, spaces and dashes typed', () => {
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    assert.equal(new Set(codes).size, 200);
    const code = codes[0]!;
    assert.match(code, /^[a-km-np-z2-9]{4}(-[a-km-np-z2-9]{4}){3}$/);
    assert.deepEqual(hashRecoveryCode(` ${code.toUpperCase().replace(/-/g, ' ')} `), hashRecoveryCode(code));
    assert.notDeepEqual(hashRecoveryCode(codes[1]!), hashRecoveryCode(code));
  });
});
