import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  CONFIGURATION_DOC,
  configDescriptionProblems,
  configurationDoc,
  configVariables,
  operationsTableDrift,
} from './docs.ts';

describe('docs/configuration.md', () => {
  it('is what core/config/ describes (regenerate with `npm run docs`)', async () => {
    expect(await readFile(CONFIGURATION_DOC, 'utf8')).toBe(configurationDoc());
  });

  it('has a description for every variable, and no default that contradicts the schema', () => {
    expect(configDescriptionProblems()).toEqual([]);
  });

  it('reads meaning, default and production from a description, the default from zod when unsaid', () => {
    const byName = new Map(configVariables().map((v) => [v.name, v]));
    expect(byName.get('DATABASE_URL')).toMatchObject({
      meaning: 'Postgres connection URL',
      default: 'embedded Postgres',
      production: '**required**',
    });
    expect(byName.get('PORT')).toMatchObject({ default: '`3000`', production: 'set by the platform' });
    expect(byName.get('LOG_LEVEL')).toMatchObject({ default: '`info`', production: '–' });
  });

  it('names what is wrong with a description', () => {
    const problems = configDescriptionProblems([
      { name: 'A', meaning: '', default: 'none', production: '–', schemaDefault: undefined },
      { name: 'B', meaning: 'b', default: '`2`', production: '–', schemaDefault: 3 },
    ]);
    expect(problems).toEqual([
      "A has no .describe('…') giving its meaning",
      'B: the description\'s default "`2`" does not name zod\'s `3`',
    ]);
  });
});

describe('the README', () => {
  it('stays an entry point: at most 300 lines and 15 KB', async () => {
    const text = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(text.split('\n').length).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(15 * 1024);
  });
});

describe('the queue and schedule tables of docs/operations.md', () => {
  it('agree with core/queue.ts and worker/schedules.ts', async () => {
    expect(await operationsTableDrift()).toEqual([]);
  });

  it('are caught when a row is missing, extra or wrong', async () => {
    const text = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const drifted = text
      .replace(/^\| `vm-idle` \| every minute.*\n/m, '')
      .replace(/^\| `alert-notify` \| every minute/m, '| `alert-notify` | every 5 minutes')
      .replace(/^(\| `vm-stop` \| [^|]+ \| )\d+/m, '$110000')
      .replace(/^(\| `vm-start` \|.*\n)/m, '$1| `vm-resize` | nothing | 1 | a queue nobody declared |\n');
    expect(await operationsTableDrift(drifted)).toEqual([
      'queue `vm-stop`: the table says 10000 tries, core/queue.ts 11',
      'the queue table lists `vm-resize`, which core/queue.ts does not declare',
      'schedule `vm-idle` (worker/schedules.ts) is missing from the schedules table',
      'schedule `alert-notify`: the table says "every 5 minutes", worker/schedules.ts "every minute"',
    ]);
  });
});
