/**
 * The shape every port's thread ids share: `<platform>:<part>:<part>…`, each
 * part letters, digits, '.', '_' or '-', so ids round-trip and never collide
 * across platforms. Each port names its own parts (see its thread-id.ts).
 *
 * The one module outside the platform ports that reads a thread id (a lesson's
 * session id): the engine, the profile and the controller ask it for an id's
 * platform or community and never split ids themselves
 * (test/boundary/thread-ids.test.ts).
 */

const PART = /^[A-Za-z0-9._-]+$/;

/** `platform:part:…`; throws on a part that would not round-trip. */
export function joinThreadId(platform: string, parts: readonly string[]): string {
	for (const p of parts) {
		if (typeof p !== "string" || !PART.test(p))
			throw new Error(`Invalid thread id part ${JSON.stringify(p)}: use letters, digits, '.', '_' or '-'.`);
	}
	return [platform, ...parts].join(":");
}

/** The `count` parts of a `platform:` thread id; undefined for another platform's ids or anything malformed. */
export function splitThreadId(platform: string, threadId: unknown, count: number): string[] | undefined {
	if (typeof threadId !== "string") return undefined;
	const [prefix, ...parts] = threadId.split(":");
	if (prefix !== platform || parts.length !== count || !parts.every((p) => PART.test(p))) return undefined;
	return parts;
}

/** The platform a thread id names (`discord`, `slack`, `terminal`): its prefix. */
export function platformOf(threadId: string): string {
	const end = threadId.indexOf(":");
	return end < 0 ? "" : threadId.slice(0, end);
}

/** Platforms whose thread ids name no community (the terminal: one machine's playground). */
const NO_COMMUNITY = new Set(["terminal"]);

/**
 * The community (guild, team) a lesson's thread id belongs to; "" where its platform has none (the
 * terminal) or the id has no second part. The one reading for the controller (budgets, ledgers, profile
 * buttons): it agrees with what each port encodes and with the profile's lesson facts
 * (test/adapters/thread-ids.test.ts). Ids of
 * platforms with communities are `<platform>:<community>:…`.
 */
export function communityOf(threadId: string): string {
	const [platform = "", community = ""] = threadId.split(":");
	return NO_COMMUNITY.has(platform) ? "" : community;
}
