import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { ParameterizedContext } from 'koa';
import type { AppState } from '../context.ts';
import { requestId } from './requestId.ts';

/** A request through `requestId` alone; `handle` plays the rest of the app. Answers the lines logged. */
async function logged(
  level: 'info' | 'debug',
  request: { method: string; path: string },
  handle: (ctx: { state: Partial<AppState>; status: number }) => void,
): Promise<Array<Record<string, unknown>>> {
  const lines: string[] = [];
  const log = pino({ name: 'web', level }, { write: (line: string) => lines.push(line) });
  const headers: Record<string, string> = {};
  const ctx = {
    ...request,
    state: {},
    status: 404,
    get: () => '',
    set: (name: string, value: string) => (headers[name] = value),
  };
  await requestId(log)(ctx as unknown as ParameterizedContext<AppState>, async () => handle(ctx));
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the access log', () => {
  it('writes one info line per request, with the name and what was asked, the email masked', async () => {
    const lines = await logged('info', { method: 'GET', path: '/api/invoices/user/a@b.example' }, (ctx) => {
      ctx.status = 200;
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      name: 'web',
      method: 'GET',
      path: '/api/invoices/user/:email',
      status: 200,
      msg: 'request',
    });
    expect(lines[0]!.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("writes a polled route's successes at debug only", async () => {
    const poll = (ctx: { state: Partial<AppState>; status: number }) => {
      ctx.state.routine = true;
      ctx.status = 304;
    };
    expect(await logged('info', { method: 'GET', path: '/api/vm/dashboard' }, poll)).toEqual([]);
    const debug = await logged('debug', { method: 'GET', path: '/api/vm/dashboard' }, poll);
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatchObject({ level: 20, path: '/api/vm/dashboard', status: 304 });
  });

  it("still writes a polled route's refusals at info", async () => {
    const lines = await logged('info', { method: 'GET', path: '/api/vm/dashboard' }, (ctx) => {
      ctx.state.routine = true;
      ctx.status = 401;
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, status: 401 });
  });
});
