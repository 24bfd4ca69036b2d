/**
 * How a customer's machine ends, in words that are true when they are read: "deleted" only once
 * EC2 has confirmed the instance terminated, a copy of the disk counted safe for good once it
 * completed (whatever its row becomes: restored into a renewal, then deleted by the sweep), and
 * at most one ending mail per machine (`vm_endings` holds the database to it).
 *
 * Pure: the lifecycle reads the machine's copies and its customer's later plans from rows and
 * asks here which copy stands and which mail (if any) the ending sends.
 */

/** The mails that end a machine: at most one of them per machine. */
export const ENDING_NOTICES = ['vm-terminated', 'disk-kept', 'disk-restored', 'vm-replaced'] as const;
export type EndingNotice = (typeof ENDING_NOTICES)[number];

export function isEndingNotice(kind: string): kind is EndingNotice {
  return (ENDING_NOTICES as readonly string[]).includes(kind);
}

/** A copy of the machine's disk as its row says (state, and what happened to it). */
export type CopyFacts = {
  state: string;
  completedAt: unknown;
  restoredVmId: string | null;
};

/**
 * Where the kept copy of a machine's disk stands:
 * - restored: a copy completed and a new machine of the customer's was made from it;
 * - kept: a copy completed (kept, or since deleted at the end of its window);
 * - creating: one is being taken; none: none was ever completed, nor is one being taken.
 * A copy that once completed keeps the machine from being copied again, whatever its row says now.
 */
export type KeptCopy = 'restored' | 'kept' | 'creating' | 'none';

export function keptCopyOf(copies: readonly CopyFacts[]): KeptCopy {
  const completed = copies.filter((c) => c.completedAt !== null && c.completedAt !== undefined);
  if (completed.some((c) => c.restoredVmId !== null)) return 'restored';
  if (completed.length > 0) return 'kept';
  return copies.some((c) => c.state === 'creating') ? 'creating' : 'none';
}

/**
 * The one mail a machine's confirmed deletion sends, or none:
 * - a plan that ended: the files given to the renewed machine (`disk-restored`), kept until a
 *   date (`disk-kept`; its words say "not renewed" only when nothing was), or gone with it
 *   (`vm-terminated`, only when nothing was renewed since);
 * - a lost machine replaced by a new one: its own mail (`vm-replaced`), sent when replaced;
 * - an account deleted, a machine retired by an operator: nothing (the customer asked, or is told otherwise).
 */
export function endingNotice(input: {
  /** Why the machine was sent to be deleted (`vms.state_reason`). */
  reason: string | null;
  copy: KeptCopy;
  /** The customer has a plan bought after this machine's plan ended (a renewal). */
  renewed: boolean;
}): EndingNotice | null {
  if (input.reason !== 'plan-ended') return null;
  switch (input.copy) {
    case 'restored':
      return 'disk-restored';
    case 'kept':
      return 'disk-kept';
    case 'creating':
    case 'none':
      return input.renewed ? null : 'vm-terminated';
  }
}
