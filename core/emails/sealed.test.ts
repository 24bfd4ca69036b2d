import { describe, expect, it } from 'vitest';
import { openSealedMail, sealMailSecrets } from './sealed.ts';
import { passwordResetMail, registrationCodeMail } from './accounts.ts';

const SECRET = 'a-test-secret-that-is-long-enough-000000';

describe('sealed mail secrets', () => {
  it('keeps the code out of the payload and fills it in when opened', () => {
    const mail = registrationCodeMail(SECRET, 'a@b.co', 'Asha', '042917', 10);
    expect(JSON.stringify(mail)).not.toContain('042917');
    const sent = openSealedMail(SECRET, mail);
    expect(sent.text).toContain('Your verification code is 042917.');
    expect(sent.html).toContain('042917');
    expect(sent).not.toHaveProperty('sealed');
  });

  it('escapes values in the HTML part', () => {
    const mail = passwordResetMail(SECRET, 'a@b.co', 'http://x/reset-password?token=t&email=a%40b.co', 30);
    const sent = openSealedMail(SECRET, mail);
    expect(sent.text).toContain('http://x/reset-password?token=t&email=a%40b.co');
    expect(sent.html).toContain('token=t&amp;email=a%40b.co');
  });

  it('refuses a seal made under another secret, and a placeholder without a value', () => {
    const mail = registrationCodeMail(SECRET, 'a@b.co', 'Asha', '042917', 10);
    expect(() => openSealedMail(`${SECRET}x`, mail)).toThrow();
    const holey = { ...mail, sealed: sealMailSecrets(SECRET, { other: 'x' }) };
    expect(() => openSealedMail(SECRET, holey)).toThrow(/no value for code/);
  });

  it('leaves mails without secrets alone', () => {
    const plain = { kind: 'k', to: 'a@b.co', subject: 's', text: 't {{sealed.code}}' };
    expect(openSealedMail(SECRET, plain)).toBe(plain);
  });
});
