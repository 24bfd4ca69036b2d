import pg from 'pg';

/**
 * A named prepared statement whose rows are answered as Postgres sent them: one array of column
 * texts (null for NULL) per row, in the statement's column order. For the dashboard poll
 * (core/db/dashboard.ts), which knows its columns and parses the few it needs: pg's own result
 * (a row description turned into field parsers and an object built per row, on every execution)
 * cost the poll's web process more than the rest of its reading of the row.
 *
 * A `pg.Query` whose row handling is replaced (its handleRowDescription and handleDataRow, the
 * hooks pg calls a query's rows through; pg's type declarations leave them out): pg still
 * prepares the statement once per connection, binds, executes, and reports errors as for any
 * query. Every dashboard test runs through it.
 */
class TextRowsQuery extends pg.Query {
  readonly texts: Array<Array<string | null>> = [];
  columns: string[] = [];

  // Only the names are kept: no parser is set up per column, no object built per row.
  handleRowDescription(message: { fields: Array<{ name: string }> }): void {
    this.columns = message.fields.map((field) => field.name);
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    this.texts.push(message.fields);
  }
}

export type TextRowsDb = Pick<pg.Pool, 'query'>;

/** The statement's column names, and its rows as arrays of texts in that order. */
export async function textRows(
  db: TextRowsDb,
  statement: { name: string; text: string; values: unknown[] },
): Promise<{ columns: string[]; rows: Array<Array<string | null>> }> {
  const query = new TextRowsQuery(statement);
  await db.query(query as unknown as pg.QueryConfig);
  return { columns: query.columns, rows: query.texts };
}
