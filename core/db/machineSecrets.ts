import { z } from 'zod';
import { sql, type Db, type FragmentSqlToken } from './pool.ts';

/**
 * Each machine's own secrets (sql/0021_streaming.sql), keyed by the ClientToken of the launch
 * they were made for: the customer's vm id, or a warm-pool row's id. A customer machine's are
 * found through its instance: a spare's row names the instance a customer later claimed, so the
 * secrets travel with it and are never re-made.
 */

export const MachineSecretsRow = z.object({
  launch_token: z.uuid(),
  sunshine_username: z.string(),
  sunshine_password_sealed: z.string(),
  health_secret_sealed: z.string(),
});
export type MachineSecretsRow = z.infer<typeof MachineSecretsRow>;

const COLUMNS = sql.fragment`launch_token, sunshine_username, sunshine_password_sealed, health_secret_sealed`;

/**
 * The secrets of a launch: those stored before (a retried launch must send the same user data,
 * or EC2 refuses the ClientToken), else `fresh` stored now. Safe against two workers at once.
 */
export async function secretsForLaunch(
  db: Db,
  launchToken: string,
  fresh: () => { sunshineUsername: string; sunshinePasswordSealed: string; healthSecretSealed: string },
): Promise<MachineSecretsRow> {
  const existing = await db.maybeOne(sql.type(MachineSecretsRow)`
    SELECT ${COLUMNS} FROM machine_secrets WHERE launch_token = ${launchToken}`);
  if (existing) return existing;
  const made = fresh();
  const inserted = await db.maybeOne(sql.type(MachineSecretsRow)`
    INSERT INTO machine_secrets (launch_token, sunshine_username, sunshine_password_sealed, health_secret_sealed)
    VALUES (${launchToken}, ${made.sunshineUsername}, ${made.sunshinePasswordSealed}, ${made.healthSecretSealed})
    ON CONFLICT (launch_token) DO NOTHING
    RETURNING ${COLUMNS}`);
  return (
    inserted ??
    db.one(
      sql.type(MachineSecretsRow)`SELECT ${COLUMNS} FROM machine_secrets WHERE launch_token = ${launchToken}`,
    )
  );
}

/**
 * The launch whose secrets an instance carries, in SQL: the warm-pool spare's row when the
 * instance began as a spare (its row keeps the instance id after a claim, so the secrets travel
 * to the customer and are never re-made), else the machine's own id, its ClientToken.
 */
export function launchTokenOf(instanceId: FragmentSqlToken, vmId: FragmentSqlToken) {
  return sql.fragment`COALESCE((SELECT p.id FROM pool_instances p WHERE p.instance_id = ${instanceId}), ${vmId})`;
}

/** `machine_secrets ms` joined to the machine `v` (a `vms` row alias) whose instance they were made for. */
export const SECRETS_OF_VM = sql.fragment`machine_secrets ms
  ON ms.launch_token = ${launchTokenOf(sql.fragment`v.instance_id`, sql.fragment`v.id`)}`;
