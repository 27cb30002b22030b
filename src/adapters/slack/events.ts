/**
 * Events API: messages typed in a lesson thread reach the tutor (the engine decides who
 * may speak: the learner, or anyone in group mode), and a mention with a topic starts a
 * lesson. Bot messages, edits, deletions and join notices are ignored; Slack's retries
 * and the app_mention/message pair of one mention are delivered once.
 */

import type { App } from "@slack/bolt";
import { LRUCache } from "lru-cache";
import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import { encodeSessionId } from "../../core/session-id.ts";
import { type HandlerContext, notify } from "./context.ts";
import { startSlackLesson } from "./start-lesson.ts";

/** The fields of a message/app_mention event we read (payloads are checked, not trusted). */
interface TypedMessage {
	teamId: string;
	channelId: string;
	ts: string;
	threadTs: string | undefined;
	userId: string;
	text: string;
}

// Subtypes that are a person typing in the thread; everything else (edits, bots, joins) is not.
const PERSON_SUBTYPES = new Set([undefined, "thread_broadcast", "file_share"]);

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function typedMessage(body: Record<string, unknown>, event: Record<string, unknown>): TypedMessage | undefined {
	if (!PERSON_SUBTYPES.has(event.subtype as string | undefined) || event.bot_id !== undefined) return undefined;
	const teamId = str(body.team_id) ?? str(event.team);
	const channelId = str(event.channel);
	const ts = str(event.ts);
	const userId = str(event.user);
	if (!teamId || !channelId || !ts || !userId) return undefined;
	return {
		teamId,
		channelId,
		ts,
		threadTs: str(event.thread_ts),
		userId,
		text: typeof event.text === "string" ? event.text : "",
	};
}

/** Remove user mentions (the bot's, or anyone's) and tidy whitespace. */
export function stripMentions(text: string): string {
	return text
		.replace(/<@[UW][A-Z0-9]+(?:\|[^>]*)?>/g, " ")
		.replace(/\s+/g, " ")
		.trim();
}

/** Register message and app_mention handlers. */
export function registerEvents(app: App, ctx: HandlerContext): void {
	const seen = new LRUCache<string, true>({ max: 10_000, ttl: 15 * 60 * 1000 });
	// True the first time a message is seen; Slack may deliver one message as app_mention and message, and retry both.
	const firstTime = (m: TypedMessage): boolean => {
		const key = `${m.channelId}:${m.ts}`;
		if (seen.has(key)) return false;
		seen.set(key, true);
		return true;
	};
	const sessionOf = (m: TypedMessage): string | undefined =>
		m.threadTs && m.threadTs !== m.ts
			? encodeSessionId({ platform: "slack", teamId: m.teamId, channelId: m.channelId, threadTs: m.threadTs })
			: undefined;

	const deliver = async (m: TypedMessage, sessionId: string): Promise<void> => {
		const text = stripMentions(m.text);
		if (text === "") return;
		// A name, so answered cards and the tutor say "ada", not a user id (cached; none when users.info fails).
		const name = await ctx.admins.displayName(m.userId);
		const by: Participant = name ? { id: m.userId, name } : { id: m.userId };
		const result = await ctx.tutor.handle(sessionId, { type: "message", text, by });
		// People chat in threads: a refused message (not the learner, lesson over) is logged, not answered.
		if (!result.ok) ctx.logger.debug({ sessionId, code: result.code }, "slack: thread message not for the tutor");
	};

	app.event("message", async ({ body, event }) => {
		try {
			const m = typedMessage(body as unknown as Record<string, unknown>, event as unknown as Record<string, unknown>);
			const sessionId = m ? sessionOf(m) : undefined;
			if (!m || !sessionId || !(await ctx.state.lesson(sessionId))) return;
			if (firstTime(m)) await deliver(m, sessionId);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling a message failed");
		}
	});

	app.event("app_mention", async ({ body, event }) => {
		try {
			const m = typedMessage(body as unknown as Record<string, unknown>, event as unknown as Record<string, unknown>);
			if (!m) return;
			const sessionId = sessionOf(m);
			if (sessionId && (await ctx.state.lesson(sessionId))) {
				if (firstTime(m)) await deliver(m, sessionId);
				return;
			}
			if (!firstTime(m)) return;
			let mode: LessonMode | undefined;
			const words = stripMentions(m.text)
				.split(" ")
				.filter((w) => {
					const lower = w.toLowerCase();
					if (lower === "--group") mode = "group";
					else if (lower === "--solo") mode = "solo";
					else return w !== "";
					return false;
				});
			const topic = words.join(" ");
			const place = { channelId: m.channelId, userId: m.userId, threadTs: m.threadTs };
			if (topic === "")
				return notify(ctx, place, "Mention me with a topic to start a lesson, e.g. `@learnharness fractions`.");
			const name = await ctx.admins.displayName(m.userId);
			const outcome = await startSlackLesson(ctx, {
				teamId: m.teamId,
				channelId: m.channelId,
				by: name ? { id: m.userId, name } : { id: m.userId },
				topic,
				...(mode ? { mode } : {}),
				byAdmin: await ctx.admins.isAdmin(m.userId),
			});
			if (!outcome.ok) await notify(ctx, place, outcome.message);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling a mention failed");
		}
	});
}
