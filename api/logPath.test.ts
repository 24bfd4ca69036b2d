import { describe, expect, it } from 'vitest';
import { loggedPath } from './logPath.ts';

describe('the path the access log records', () => {
  it.each([
    ['/api/vm/dashboard/asha%40example.com', '/api/vm/dashboard/:email'],
    ['/api/vm/rdp/Asha%40Example.com', '/api/vm/rdp/:email'],
    ['/api/invoices/user/asha@example.com', '/api/invoices/user/:email'],
    ['/api/vm/usage/a%40b.co', '/api/vm/usage/:email'],
    ['/api/x/3f9a1c0b8e7d6c5b4a39281706f5e4d3', '/api/x/:token'],
  ])('hides the customer in %s', (path, logged) => {
    expect(loggedPath(path)).toBe(logged);
  });

  it.each(['/api/vm/rdp', '/BlogPostPage/3', '/api/payu/webhook', '/assets/index-BQx2f1.js', '/'])(
    'keeps %s as it is',
    (path) => {
      expect(loggedPath(path)).toBe(path);
    },
  );
});
