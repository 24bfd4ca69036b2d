import { readFile, writeFile } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Text files worth compressing ahead of time. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

/**
 * Writes `file.br` and `file.gz` beside a text file (nothing for other files or one under a kilobyte). The web
 * process serves them by Accept-Encoding, so no CPU is spent compressing per request and pages
 * are small on the wire with or without a compressing proxy in front.
 */
export async function precompressFile(file: string): Promise<void> {
  if (!COMPRESSIBLE.test(file)) return;
  const content = await readFile(file);
  if (content.length < 1024) return;
  await writeFile(`${file}.gz`, gzipSync(content, { level: 9 }));
  await writeFile(
    `${file}.br`,
    brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
}
