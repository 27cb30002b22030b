/**
 * The state stores' schema: every key prefix written in a StateStore, declared
 * once with its owner module, the store (namespace) it lives in and its TTL,
 * and the one builder each writer and reader uses. Forget-me and retention
 * delete other modules' keys through these builders, never by rebuilding a
 * key by hand; test/agent/store/keys.test.ts fails on a key written with a
 * prefix missing here.
 *
 * Stores (each its own namespace on the sessions' backend):
 *   profiles:   `learnharness:profiles` (agent/profile);
 *   pictures:   `learnharness:pictures` (agent/store/picture-store.ts);
 *   material:   `learnharness:material` (agent/store/material-store.ts, library-store.ts);
 *   controller: the platform's name (`discord`, `slack`, `terminal`): the lesson controller's state;
 *   health:     `health` (cli/start.ts reads `probe`, never writes);
 *   dashboard:  `learnharness:dashboard` (dashboard/sign-in.ts: used sign-in links, sessions).
 * Session records are not in a state store: the session store (session-store.ts) owns `session:<id>`.
 */

/** One declared key prefix (or exact key): who owns it, where it lives, how long it lives. */
export interface KeySpec {
	/** The module that writes it (the only one that may build it without this file). */
	owner: string;
	store: "profiles" | "pictures" | "material" | "controller" | "health" | "dashboard";
	/** How long it lives, in words (the owner's constant holds the number). */
	ttl: string;
	/** The whole key, not a prefix. */
	exact?: true;
	/**
	 * `process`: on a store one process owns (SQLite, memory) kept in that process's memory, never written (no
	 * other process can ask for it; a restart forgets it). Stores several processes share write it as any key.
	 */
	embedded?: "process";
}

/** Every key prefix written in a state store. */
export const STATE_KEYS = {
	"profile:": { owner: "agent/profile/profile-store.ts", store: "profiles", ttl: "none: deleted by forget-me" },
	// Earlier versions' list of a learner's review items: moved to `review-items:` on first touch, then deleted.
	"reviews:": { owner: "agent/profile/profile-store.ts", store: "profiles", ttl: "none: moved, then deleted" },
	// Scored items (store/scored-items.ts), not a plain value: an SQL table's rows or a Redis hash and sorted set.
	"review-items:": {
		owner: "agent/profile/profile-store.ts",
		store: "profiles",
		ttl: "none: deleted by forget-me and retention",
	},
	"members:": { owner: "agent/profile/learning.ts", store: "profiles", ttl: "none: edited as lessons come and go" },
	// Scored items: one per member, their lessons' report rows in the community.
	"report-rows:": {
		owner: "agent/profile/report-rows.ts",
		store: "profiles",
		ttl: "none: edited as lessons come and go",
	},
	communities: { owner: "agent/profile/learning.ts", store: "profiles", ttl: "none", exact: true },
	reminders: { owner: "agent/profile/learning.ts", store: "profiles", ttl: "none", exact: true },
	"reminded:": { owner: "agent/profile/learning.ts", store: "profiles", ttl: "2 days (REMINDED_TTL_MS)" },
	"retention:": { owner: "agent/profile/learning.ts", store: "profiles", ttl: "none: an admin's setting" },
	"lessons:": {
		owner: "agent/profile/lesson-index.ts",
		store: "profiles",
		ttl: "none: a lesson's digest goes with the lesson (forget-me, retention)",
	},
	"lesson-versions:": {
		owner: "agent/profile/lesson-index.ts",
		store: "profiles",
		ttl: "none: one change count per bucket of a community's lesson index",
	},
	"dashboard-link:": {
		owner: "dashboard/sign-in.ts",
		store: "dashboard",
		ttl: "until the link expires (LINK_TTL_MS)",
	},
	"dashboard-session:": { owner: "dashboard/sign-in.ts", store: "dashboard", ttl: "SESSION_TTL_MS (1 hour)" },
	"picture:": {
		owner: "agent/store/picture-store.ts",
		store: "pictures",
		ttl: "the retention period (default 365 days)",
	},
	"picture-bytes:": {
		owner: "agent/store/picture-store.ts",
		store: "pictures",
		ttl: "2 hours (lesson), 2 days (learner)",
	},
	"material:": {
		owner: "agent/store/material-store.ts",
		store: "material",
		ttl: "the retention period (default 365 days)",
	},
	"library:": {
		owner: "agent/store/library-store.ts",
		store: "material",
		ttl: "none: items go when removed, with forget-me and the retention sweep",
	},
	"library-item:": {
		owner: "agent/store/library-store.ts",
		store: "material",
		ttl: "none: deleted with its list entry",
	},
	libraries: { owner: "agent/store/library-store.ts", store: "material", ttl: "none", exact: true },
	// Earlier versions kept a card's message ids here; the session record carries them now (read, no longer written).
	"card:": { owner: "adapters/lesson/lesson-state.ts", store: "controller", ttl: "30 days (LESSON_TTL_MS)" },
	"intro:": { owner: "adapters/lesson/lesson-state.ts", store: "controller", ttl: "30 days (LESSON_TTL_MS)" },
	"latest:": { owner: "adapters/lesson/lesson-state.ts", store: "controller", ttl: "30 days (LESSON_TTL_MS)" },
	"rules:": { owner: "adapters/lesson/lesson-state.ts", store: "controller", ttl: "none: an admin's setting" },
	"count:": { owner: "adapters/lesson/daily-counter.ts", store: "controller", ttl: "2 days" },
	"review:": { owner: "adapters/lesson/review.ts", store: "controller", ttl: "1 day" },
	"seen:": {
		owner: "adapters/lesson/deliveries.ts",
		store: "controller",
		ttl: "15 s pending, then DELIVERY_TTL_MS",
		// A duplicate delivery only another process could have handled: one process's store needs no write for it.
		embedded: "process",
	},
	"forgotten:": { owner: "adapters/lesson/forgotten-members.ts", store: "controller", ttl: "1 day (FORGOTTEN_TTL_MS)" },
	// Earlier versions' cap counters: read once and added, no longer written (the day's usage record holds them).
	"spend:": { owner: "adapters/lesson/spend-counters.ts", store: "controller", ttl: "2 days" },
	"usage:": {
		owner: "adapters/lesson/usage-ledger.ts",
		store: "controller",
		ttl: "40 days (the day's record, usage-day.ts; earlier versions' records as they were)",
	},
} as const satisfies Record<string, KeySpec>;

/** A declared prefix (or exact key). */
export type StateKeyPrefix = keyof typeof STATE_KEYS;

/** The declared prefix `key` is written under, or undefined when it has none (a key this file does not know). */
export function declaredPrefixOf(key: string): StateKeyPrefix | undefined {
	let best: StateKeyPrefix | undefined;
	for (const [prefix, spec] of Object.entries(STATE_KEYS) as Array<[StateKeyPrefix, KeySpec]>) {
		const fits = spec.exact === true ? key === prefix : key.startsWith(prefix);
		// The longest fitting prefix names the owner ("picture-bytes:" before a shorter one).
		if (fits && (best === undefined || prefix.length > best.length)) best = prefix;
	}
	return best;
}

/** The key builders, by owner. Parts are joined with ":" as they always were (stored keys stay readable). */
export const stateKeys = {
	/** A learner's profile (learner key: `discord:<user>`, `slack:<team>:<user>`, `terminal:<user>`). */
	profile: (learner: string) => `profile:${learner}`,
	/** A learner's review items as earlier versions stored them (one list; read once and moved). */
	reviews: (learner: string) => `reviews:${learner}`,
	/** A learner's review items, scored by due time (a scored-items collection). */
	reviewItems: (learner: string) => `review-items:${learner}`,
	/** The learner keys with a lesson in a community (the admin report's index). */
	members: (community: string) => `members:${community}`,
	/** A community's report rows, one item per member (a scored-items collection). */
	reportRows: (community: string) => `report-rows:${community}`,
	/** The communities that have members (retention walks them). */
	communities: () => "communities" as const,
	/** The learner keys with reminders on. */
	reminders: () => "reminders" as const,
	/** A learner's once-a-day reminder guard. */
	reminded: (learner: string, day: string) => `reminded:${learner}:${day}`,
	/** A community's retention setting (days). */
	retention: (community: string) => `retention:${community}`,
	/** A bucket of a community's lesson digests (`<platform>:<guild or team>`; lesson-index.ts). */
	lessons: (community: string, bucket: number) => `lessons:${community}:${bucket}`,
	/** How often each bucket of a community's lesson index changed (readers re-read only the buckets that did). */
	lessonVersions: (community: string) => `lesson-versions:${community}`,
	/** A dashboard sign-in link that was used (by its nonce): the second use is refused. */
	dashboardLink: (nonce: string) => `dashboard-link:${nonce}`,
	/** A dashboard session, by a hash of its cookie (never the cookie itself). */
	dashboardSession: (cookieHash: string) => `dashboard-session:${cookieHash}`,
	/** A lesson's picture, by its content hash. */
	picture: (sessionId: string, sha256: string) => `picture:${sessionId}:${sha256}`,
	/** A lesson's picture bytes in an hour. */
	pictureBytesOfLesson: (sessionId: string, hour: number) => `picture-bytes:lesson:${sessionId}:${hour}`,
	/** A learner's picture bytes in a day. */
	pictureBytesOfLearner: (learner: string, day: number) => `picture-bytes:learner:${learner}:${day}`,
	/** A lesson's material index (a learner's PDF: passages, outline, warnings). */
	material: (sessionId: string) => `material:${sessionId}`,
	/** A community's library: one field per item (its name in lower case → the item as JSON text). */
	library: (community: string) => `library:${community}`,
	/** A library item's index, by its name in lower case. */
	libraryItem: (community: string, key: string) => `library-item:${community}:${key}`,
	/** The communities that have a library (the retention sweep walks them). */
	libraries: () => "libraries" as const,
	/** A posted card's message ids. */
	card: (threadId: string, toolCallId: string) => `card:${threadId}:${toolCallId}`,
	/** A lesson's intro (learner, place, topic). */
	intro: (threadId: string) => `intro:${threadId}`,
	/**
	 * The latest lesson in a place (`<community>:<channel>`), or a learner's latest there. A learner's
	 * key is the place's key plus `:<user>`.
	 */
	latest: (place: string, userId?: string) => (userId === undefined ? `latest:${place}` : `latest:${place}:${userId}`),
	/** A community's lesson rules. */
	rules: (community: string) => `rules:${community}`,
	/** A daily count of lessons started (scope: the community, or a community and channel). */
	count: (scope: string, userId: string, day: string) => `count:${scope}:${userId}:${day}`,
	/** A review thread's progress. */
	review: (threadId: string) => `review:${threadId}`,
	/** A platform delivery already handled (an event, an interaction, a message). */
	seen: (delivery: string) => `seen:${delivery}`,
	/** A member who asked to be forgotten, by a hash of their id (never the id). */
	forgotten: (memberHash: string) => `forgotten:${memberHash}`,
	/** A community's spend counter of a day, or one member's. */
	spend: (community: string, day: string, member?: string) =>
		member === undefined ? `spend:${community}:${day}#all` : `spend:${community}:${day}#m:${member}`,
	/** The base key of a community's usage in a period (a day or a month); the ledger adds its `#…` fields. */
	usage: (community: string, period: string) => `usage:${community}:${period}`,
};
