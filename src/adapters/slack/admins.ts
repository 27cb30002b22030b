/**
 * Who is an admin: a configured user id, or a workspace admin/owner per users.info
 * (cached a few minutes so a burst of clicks costs one call).
 */

import type { webApi } from "@slack/bolt";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../core/contracts/logger.ts";

/** Answers "may this user administer lessons?". */
export interface AdminCheck {
	isAdmin(userId: string): Promise<boolean>;
}

/** Create the check; users.info failures count as "not an admin" (and are logged). */
export function createAdminCheck(
	client: webApi.WebClient,
	adminUserIds: readonly string[],
	logger: Logger,
): AdminCheck {
	const configured = new Set(adminUserIds);
	const cache = new LRUCache<string, boolean>({ max: 1000, ttl: 5 * 60 * 1000 });
	return {
		async isAdmin(userId) {
			if (configured.has(userId)) return true;
			const cached = cache.get(userId);
			if (cached !== undefined) return cached;
			try {
				const res = await client.users.info({ user: userId });
				const u = res.user;
				const admin = Boolean(u?.is_admin || u?.is_owner || u?.is_primary_owner);
				cache.set(userId, admin);
				return admin;
			} catch (error) {
				logger.warn({ err: error, userId }, "slack: users.info failed; treating the user as a member");
				return false;
			}
		},
	};
}
