import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './log.ts';

/** A logger whose lines are kept, parsed. */
function capture() {
  const lines: Array<Record<string, Record<string, unknown> | string>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, Record<string, unknown> | string>);
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info', name: 'test', destination }) };
}

describe('log redaction', () => {
  it("keeps an error's code and name, and still blanks codes, passwords and tokens", () => {
    const { lines, log } = capture();
    const error = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' });
    log.error({ err: error, otp: '123456', body: { code: '654321', password: 'hunter2' } }, 'failed');
    log.warn({ error: { code: 'ECONNREFUSED', name: 'ConnectionError' }, token: 'abc' }, 'lost');
    const [first, second] = lines;
    expect(first!.err).toMatchObject({
      code: 'Z_DATA_ERROR',
      type: 'Error',
      message: 'incorrect header check',
    });
    expect(first!.otp).toBe('[redacted]');
    expect(first!.body).toEqual({ code: '[redacted]', password: '[redacted]' });
    expect(second!.error).toEqual({ code: 'ECONNREFUSED', name: 'ConnectionError' });
    expect(second!.token).toBe('[redacted]');
  });

  it('blanks a top-level code', () => {
    const { lines, log } = capture();
    log.info({ code: '123456' }, 'asked');
    expect(lines[0]!.code).toBe('[redacted]');
  });
});

describe('log format', () => {
  function lines(format: 'json' | 'pretty'): Promise<string> {
    let text = '';
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString('utf8');
        done();
      },
    });
    const log = createLogger({ level: 'info', name: 'web', destination, format });
    log.info({ vmId: 'vm-1', password: 'hunter2' }, 'machine started');
    return new Promise((resolve) => setImmediate(() => resolve(text)));
  }

  it('writes a readable line for a person at a terminal, still redacted', async () => {
    const text = await lines('pretty');
    expect(text).toMatch(/INFO.*\(web\): machine started/);
    expect(text).toContain('vmId: "vm-1"');
    expect(text).toContain('password: "[redacted]"');
    expect(text).not.toContain('hunter2');
    expect(text.trimStart().startsWith('{')).toBe(false);
  });

  it('writes one JSON object per line otherwise', async () => {
    const text = await lines('json');
    expect(JSON.parse(text)).toMatchObject({ name: 'web', msg: 'machine started', password: '[redacted]' });
  });
});
