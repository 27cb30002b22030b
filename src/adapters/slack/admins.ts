/**
 * Who someone is, from users.info (cached a few minutes so a burst of clicks or
 * messages costs one call): whether they may administer lessons (a configured
 * user id, or a workspace admin/owner), and the name a lesson shows for them.
 */

import type { webApi } from "@slack/bolt";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../core/contracts/logger.ts";
import { type Locale, resolveLocale } from "../../i18n/index.ts";

/** Answers "may this user administer lessons?" and "what is their name?". */
export interface AdminCheck {
	isAdmin(userId: string): Promise<boolean>;
	/** The member's display name (else real name, else handle); undefined when users.info fails. Never throws. */
	displayName(userId: string): Promise<string | undefined>;
	/** The member's Slack language when we support it (users.info with include_locale); undefined otherwise. Never throws. */
	locale(userId: string): Promise<Locale | undefined>;
}

interface Member {
	admin: boolean;
	name?: string;
	locale?: Locale;
}

const nameOf = (user: Record<string, unknown> | undefined): string | undefined => {
	const profile = (user?.profile ?? {}) as Record<string, unknown>;
	for (const v of [profile.display_name, profile.real_name, user?.real_name, user?.name])
		if (typeof v === "string" && v.trim() !== "") return v.replace(/\s+/g, " ").trim().slice(0, 80);
	return undefined;
};

/** Create the check; users.info failures count as "not an admin", with no name (and are logged). */
export function createAdminCheck(
	client: webApi.WebClient,
	adminUserIds: readonly string[],
	logger: Logger,
): AdminCheck {
	const configured = new Set(adminUserIds);
	const cache = new LRUCache<string, Member>({ max: 1000, ttl: 5 * 60 * 1000 });
	const member = async (userId: string): Promise<Member | undefined> => {
		const cached = cache.get(userId);
		if (cached !== undefined) return cached;
		try {
			const res = await client.users.info({ user: userId, include_locale: true });
			const u = res.user;
			const name = nameOf(u as Record<string, unknown> | undefined);
			const found: Member = { admin: Boolean(u?.is_admin || u?.is_owner || u?.is_primary_owner) };
			if (name !== undefined) found.name = name;
			const locale = resolveLocale(u?.locale);
			if (locale !== undefined) found.locale = locale;
			cache.set(userId, found);
			return found;
		} catch (error) {
			logger.warn({ err: error, userId }, "slack: users.info failed; treating the user as a member");
			return undefined;
		}
	};
	return {
		async isAdmin(userId) {
			if (configured.has(userId)) return true;
			return (await member(userId))?.admin ?? false;
		},
		async displayName(userId) {
			return (await member(userId))?.name;
		},
		async locale(userId) {
			return (await member(userId))?.locale;
		},
	};
}
