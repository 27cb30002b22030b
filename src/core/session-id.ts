/**
 * Session ids: one lesson = one thread, named by platform:
 * `discord:<guild>:<thread>`, `slack:<team>:<channel>:<thread_ts>`,
 * `terminal:<id>`. Encode and decode round-trip; decode refuses anything else.
 */

/** Where a lesson lives. */
export type SessionAddress =
	| { platform: "discord"; guildId: string; threadId: string }
	| { platform: "slack"; teamId: string; channelId: string; threadTs: string }
	| { platform: "terminal"; id: string };

const PART = /^[A-Za-z0-9._-]+$/;

function checkParts(parts: readonly string[]): void {
	for (const p of parts) {
		if (!PART.test(p))
			throw new Error(`Invalid session id part ${JSON.stringify(p)}: use letters, digits, '.', '_' or '-'.`);
	}
}

/** Encode an address as a session id; throws on parts that would not round-trip. */
export function encodeSessionId(address: SessionAddress): string {
	switch (address.platform) {
		case "discord":
			checkParts([address.guildId, address.threadId]);
			return `discord:${address.guildId}:${address.threadId}`;
		case "slack":
			checkParts([address.teamId, address.channelId, address.threadTs]);
			return `slack:${address.teamId}:${address.channelId}:${address.threadTs}`;
		case "terminal":
			checkParts([address.id]);
			return `terminal:${address.id}`;
	}
}

/** Decode a session id; undefined for anything that is not one. */
export function decodeSessionId(sessionId: string): SessionAddress | undefined {
	if (typeof sessionId !== "string") return undefined;
	const [platform, ...parts] = sessionId.split(":");
	if (parts.some((p) => !PART.test(p))) return undefined;
	if (platform === "discord" && parts.length === 2) return { platform, guildId: parts[0]!, threadId: parts[1]! };
	if (platform === "slack" && parts.length === 3)
		return { platform, teamId: parts[0]!, channelId: parts[1]!, threadTs: parts[2]! };
	if (platform === "terminal" && parts.length === 1) return { platform, id: parts[0]! };
	return undefined;
}
