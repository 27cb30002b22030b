/**
 * When to post the plan picture: after every `plan` event the tutor emits
 * (init, rewrite, the derived current node moved), but never the same picture
 * twice in a row in one lesson, across restarts too. The last posted picture's
 * key is remembered in memory and in a store the adapter chooses.
 */

import { LRUCache } from "lru-cache";
import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { PlanPicture, PlanRenderer } from "../../render/index.ts";

/** Where the key of the last posted picture survives a restart. Both may reject (logged). */
export interface PlanKeyStore {
	load(sessionId: string): Promise<string | undefined>;
	save(sessionId: string, key: string): Promise<void>;
}

/** Posts a picture (or its outline) into the lesson's thread; true once anything reached it. Must not throw. */
export type PostPlan = (picture: PlanPicture) => Promise<boolean>;

/** What onPlan did. */
export type PlanRepostOutcome = "posted" | "unchanged" | "failed";

/** Decides plan reposts for one adapter. */
export interface PlanReposter {
	/** Render the event's plan and post it unless the same picture was the last one posted in its session. Never throws. */
	onPlan(event: Extract<TutorEvent, { type: "plan" }>, post: PostPlan): Promise<PlanRepostOutcome>;
}

/** Dependencies of the reposter; `name` prefixes log lines (e.g. "discord"). */
export interface PlanReposterDeps {
	renderer: PlanRenderer;
	store: PlanKeyStore;
	logger: Logger;
	name: string;
}

/** Create a reposter; keys are cached per session (bounded) in front of the store. */
export function createPlanReposter(deps: PlanReposterDeps): PlanReposter {
	const { renderer, store, logger, name } = deps;
	const known = new LRUCache<string, string>({ max: 10_000 });

	const lastKey = async (sessionId: string): Promise<string | undefined> => {
		const cached = known.get(sessionId);
		if (cached !== undefined) return cached;
		try {
			return await store.load(sessionId);
		} catch (error) {
			logger.warn({ err: error, sessionId }, `${name}: reading the last plan picture failed`);
			return undefined;
		}
	};

	return {
		async onPlan(event, post) {
			try {
				const picture = await renderer.renderPlan(event.tree, event.statuses);
				if (picture.key === (await lastKey(event.sessionId))) return "unchanged";
				if (!picture.png && picture.error)
					logger.warn(
						{ sessionId: event.sessionId, error: picture.error },
						`${name}: plan picture unavailable; posting the outline`,
					);
				if (!(await post(picture))) return "failed";
				known.set(event.sessionId, picture.key);
				await store.save(event.sessionId, picture.key).catch((error: unknown) => {
					logger.warn({ err: error, sessionId: event.sessionId }, `${name}: saving the plan picture key failed`);
				});
				return "posted";
			} catch (error) {
				logger.error({ err: error, sessionId: event.sessionId }, `${name}: posting the plan picture failed`);
				return "failed";
			}
		},
	};
}
