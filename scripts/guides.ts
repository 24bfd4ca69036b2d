import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Refreshes the pictures of the dashboard's connection guides (web/public/guides) from the ones
 * the streaming browser test takes of our own screens. After a change to those screens:
 *
 *   npm run build && npx vitest run --project e2e tests/e2e/streaming.test.ts && node scripts/guides.ts
 *
 * then look at the pictures and commit them.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const from = path.join(ROOT, 'screenshots/guides');
const to = path.join(ROOT, 'web/public/guides');
const pictures = (await readdir(from)).filter((name) => name.endsWith('.png')).sort();
if (pictures.length === 0) {
  console.error(`no pictures in ${from}: run the streaming browser test first`);
  process.exitCode = 1;
} else {
  await mkdir(to, { recursive: true });
  for (const name of pictures) await copyFile(path.join(from, name), path.join(to, name));
  console.log(`copied ${pictures.length} guide pictures to web/public/guides: ${pictures.join(', ')}`);
}
