import { describe, expect, it } from 'vitest';
import { checkEmail, EMAIL_MESSAGES, emailProblem } from './email.ts';

describe('deliverable email addresses', () => {
  it.each([
    ['asha@example.com', 'asha@example.com'],
    ['  Asha.Rao@Example.CO.IN ', 'asha.rao@example.co.in'],
    ['ravi+cloud@gmail.com', 'ravi+cloud@gmail.com'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['a!b@example.com', 'a!b@example.com'],
    ['x@x.com', 'x@x.com'],
  ])('takes %j as %j', (typed, stored) => {
    expect(checkEmail(typed)).toEqual({ ok: true, email: stored });
  });

  it.each([
    ['ravi@bücher.de', 'ravi@xn--bcher-kva.de'],
    ['ravi@BÜCHER.de', 'ravi@xn--bcher-kva.de'],
    ['ravi@भारत.भारत', 'ravi@xn--h2brj9c.xn--h2brj9c'],
    ['ravi@xn--bcher-kva.de', 'ravi@xn--bcher-kva.de'],
  ])('keeps the internationalised domain of %j as punycode', (typed, stored) => {
    expect(checkEmail(typed)).toEqual({ ok: true, email: stored });
  });

  it.each([
    ['😀@😀.com', EMAIL_MESSAGES.localCharacters],
    ['<script>@x.com', EMAIL_MESSAGES.localCharacters],
    ['रवि@example.com', EMAIL_MESSAGES.localCharacters],
    ['"ravi kumar"@example.com', EMAIL_MESSAGES.localCharacters],
    ['ravi kumar@example.com', EMAIL_MESSAGES.localCharacters],
    ['.ravi@example.com', EMAIL_MESSAGES.localDots],
    ['ravi.@example.com', EMAIL_MESSAGES.localDots],
    ['ra..vi@example.com', EMAIL_MESSAGES.localDots],
    ['ravi@example', EMAIL_MESSAGES.domain],
    ['ravi@example.c', EMAIL_MESSAGES.domain],
    ['ravi@1.2.3.4', EMAIL_MESSAGES.domain],
    ['ravi@[127.0.0.1]', EMAIL_MESSAGES.domain],
    ['ravi@example.com:25', EMAIL_MESSAGES.domain],
    ['ravi@exa mple.com', EMAIL_MESSAGES.domain],
    ['ravi@-example.com', EMAIL_MESSAGES.domain],
    ['ravi@example..com', EMAIL_MESSAGES.domain],
    ['ravi@exa_mple.com', EMAIL_MESSAGES.domain],
    ['ravi@example.com/x', EMAIL_MESSAGES.domain],
    ['ravi@', EMAIL_MESSAGES.invalid],
    ['@example.com', EMAIL_MESSAGES.invalid],
    ['ravi.example.com', EMAIL_MESSAGES.invalid],
    ['', EMAIL_MESSAGES.required],
    ['   ', EMAIL_MESSAGES.required],
  ])('refuses %j with a sentence saying why', (typed, message) => {
    expect(checkEmail(typed)).toEqual({ ok: false, message });
    expect(emailProblem(typed)).toBe(message);
  });

  it('refuses an address longer than 254 characters, or a part before the @ longer than 64', () => {
    expect(emailProblem(`${'a'.repeat(64)}@${'b'.repeat(60)}.example.com`)).toBeNull();
    expect(emailProblem(`${'a'.repeat(65)}@example.com`)).toBe(EMAIL_MESSAGES.tooLong);
    const label = 'c'.repeat(46);
    const domain = `${[label, label, label, label].join('.')}.com`;
    expect(emailProblem(`${'a'.repeat(62)}@${domain}`)).toBeNull();
    expect(emailProblem(`${'a'.repeat(64)}@${domain}`)).toBe(EMAIL_MESSAGES.tooLong);
  });
});
