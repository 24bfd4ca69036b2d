import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { checkTotp, newTotpSecret } from './totp.ts';

const stepNow = () => Math.floor(Date.now() / 1000 / 30);

describe('checkTotp', () => {
  it('accepts the current code once: the step it returns, passed back, refuses it again', async () => {
    const secret = newTotpSecret();
    const code = await generate({ secret });
    const step = await checkTotp(secret, code, null);
    expect(step).toBeGreaterThanOrEqual(stepNow() - 1);
    await expect(checkTotp(secret, code, step)).resolves.toBeNull();
  });

  it('refuses a wrong code, a malformed one, and any code when the last used step is ahead', async () => {
    const secret = newTotpSecret();
    const code = await generate({ secret });
    const wrong = code === '000000' ? '111111' : '000000';
    await expect(checkTotp(secret, wrong, null)).resolves.toBeNull();
    await expect(checkTotp(secret, '12345', null)).resolves.toBeNull();
    // A step recorded ahead of now (a clock stepped back): nothing can match, nothing throws.
    await expect(checkTotp(secret, code, stepNow() + 5)).resolves.toBeNull();
  });

  it('does not pass a stored secret that is not one for a wrong code: it is a fault', async () => {
    await expect(checkTotp('not base32 at all!', '123456', null)).rejects.toThrow();
  });
});
