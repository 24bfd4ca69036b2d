/** A switch over a union that forgot a member fails to compile here, and throws if reached anyway. */
export function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
