import {
  createPool,
  createTypeParserPreset,
  SchemaValidationError,
  sql,
  type DatabasePool,
  type FragmentSqlToken,
  type Interceptor,
  type CommonQueryMethods,
} from 'slonik';

export { sql };
export type { DatabasePool, FragmentSqlToken };
/** Anything queries can run on: the pool, a pooled connection or a transaction. */
export type Db = CommonQueryMethods;

/**
 * Validates (and transforms) every row of a query built with `sql.type(schema)` against
 * its zod schema, so a column that changes type fails loudly at the boundary instead of
 * travelling through the app as the wrong thing.
 *
 * Synchronous on purpose: slonik runs an async row hook through a fresh job queue for every
 * query, rows or not, which measurably slowed every query (the dashboard poll most). Row
 * schemas are plain zod objects, so validation never needs to wait; one that would (an async
 * refinement) is refused loudly rather than skipped.
 */
const resultParser: Interceptor = {
  name: 'result-parser',
  transformRow: (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) {
      throw new TypeError('Row schemas must validate synchronously (no async refinements).');
    }
    if (result.issues) {
      throw new SchemaValidationError(query, row, result.issues);
    }
    return result.value as typeof row;
  },
};

/** timestamptz and date come back as Date objects, int8 as a JS number (counts, ids). */
const typeParsers = [
  ...createTypeParserPreset().filter((p) => !['timestamptz', 'timestamp', 'int8'].includes(p.name)),
  { name: 'timestamptz', parse: (value: string) => new Date(value) },
  { name: 'timestamp', parse: (value: string) => new Date(`${value}Z`) },
  { name: 'int8', parse: (value: string) => Number.parseInt(value, 10) },
];

export async function createDbPool(
  url: string,
  options: { maximumPoolSize?: number } = {},
): Promise<DatabasePool> {
  return createPool(url, {
    interceptors: [resultParser],
    typeParsers,
    maximumPoolSize: options.maximumPoolSize ?? 10,
    // Slonik retries transactions; keep that, it is why no network call may run inside one.
    transactionRetryLimit: 3,
    captureStackTrace: false,
    // Slonik's default sends DISCARD ALL every time a connection goes back to the pool: a
    // second round trip for every query. Nothing here leaves session state on a connection
    // (no SET, temporary tables, LISTEN or session advisory locks; transactions end in COMMIT
    // or ROLLBACK), so there is nothing to discard.
    resetConnection: () => Promise.resolve(),
  });
}
