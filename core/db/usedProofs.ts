import { sql, type Db } from './pool.ts';

/** Proof-of-work solutions count once: records one, answering false when it was used before. */
export async function useProof(db: Db, signature: string, expiresAt: Date): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    INSERT INTO used_proofs (signature, expires_at) VALUES (${signature}, ${expiresAt.toISOString()})
    ON CONFLICT (signature) DO NOTHING`);
  return result.rowCount === 1;
}
