/**
 * When to post the plan: at the first map (init), at a new tree version
 * (rewrite), and whenever the DERIVED current node changes (moved). The last
 * posted state lives in the session record, so a restart posts nothing twice.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import { derivePlanStatuses } from "../../core/contracts/plan.ts";
import { derivePlanMastery } from "../../core/mastery.ts";
import { latestPlanTree } from "../../core/transcript.ts";
import type { SessionRecord } from "../store/types.ts";

/** The plan event the transcript calls for now, if any; records it as shown. */
export function planEventIfChanged(record: SessionRecord): Extract<TutorEvent, { type: "plan" }> | undefined {
	const tree = latestPlanTree(record.messages);
	if (!tree) return undefined;
	const statuses = derivePlanStatuses(tree, record.messages);
	const shown = record.planShown;
	let reason: "init" | "rewrite" | "moved" | undefined;
	if (!shown) reason = "init";
	else if (shown.version !== tree.version) reason = "rewrite";
	else if (shown.current !== statuses.current) reason = "moved";
	if (!reason) return undefined;
	record.planShown = { version: tree.version, current: statuses.current };
	// Mastery rides along (derived now, never stored); it alone does not repost the map.
	const mastery = derivePlanMastery(tree, record.messages);
	return { type: "plan", sessionId: record.sessionId, tree, statuses, mastery, reason };
}
