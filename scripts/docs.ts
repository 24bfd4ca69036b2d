import { readFile, writeFile } from 'node:fs/promises';
import {
  CONFIGURATION_DOC,
  configDescriptionProblems,
  configurationDoc,
  operationsTableDrift,
} from './lib/docs.ts';

/**
 * `npm run docs` writes docs/configuration.md from core/config/'s descriptions.
 * `npm run docs -- --check` (part of `npm run check`) writes nothing and fails when that file or
 * the queue and schedule tables of docs/operations.md disagree with the code.
 */
const check = process.argv.includes('--check');
const problems = configDescriptionProblems();
const wanted = configurationDoc();
const current = await readFile(CONFIGURATION_DOC, 'utf8').catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'ENOENT') return '';
  throw error;
});
if (check) {
  if (current !== wanted)
    problems.push('docs/configuration.md differs from core/config/: run `npm run docs`');
  problems.push(...(await operationsTableDrift()));
} else if (current !== wanted) {
  await writeFile(CONFIGURATION_DOC, wanted);
  console.log('docs: wrote docs/configuration.md');
}
if (problems.length > 0) {
  console.error(`docs: ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
  process.exitCode = 1;
}
