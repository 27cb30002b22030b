/**
 * Tombstones of members who asked to be forgotten, so a charge that lands after forget-me (the
 * turn that was running when they asked) cannot write their id and name back into the usage
 * ledger. Set by forget-me before anything is deleted; read by the ledger before it writes a
 * member's slot or name. The key holds a hash of the id, never the id.
 *
 * Kept a day: a late charge comes from a turn already running at forget-me, and a turn ends far
 * sooner (its model steps are bounded, each by the model's total timeout). Longer would make the
 * member's next lessons charge the anonymous bucket too, out of reach of the per-member cap.
 */

import { createHash } from "node:crypto";
import { type StateStore, stateKeys } from "../../agent/index.ts";

/** How long a forgotten member's late charges go to the anonymous bucket. */
export const FORGOTTEN_TTL_MS = 24 * 60 * 60 * 1000;

const keyOf = (memberId: string) =>
	stateKeys.forgotten(createHash("sha256").update(memberId).digest("hex").slice(0, 32));

/** Record that `memberId` asked to be forgotten (rejects when the store fails: forget-me then stops, nothing deleted yet). */
export async function markForgotten(store: StateStore, memberId: string): Promise<void> {
	await store.set(keyOf(memberId), true, FORGOTTEN_TTL_MS);
}

/** True when `memberId` asked to be forgotten within FORGOTTEN_TTL_MS (rejects when the store fails). */
export async function isForgotten(store: StateStore, memberId: string): Promise<boolean> {
	return (await store.get(keyOf(memberId))) === true;
}
