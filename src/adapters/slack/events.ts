/**
 * Events API: messages typed in a lesson thread reach the tutor (the engine decides who
 * may speak: the learner, or anyone in group mode), with the files shared with them
 * (subtype file_share: pictures for the tutor; a Slack Connect file, sent as its id alone, is looked up with
 * files.info), and a mention with a topic starts a
 * lesson. Text is decoded at the edge (text.ts: Slack's escapes and control sequences). Bot messages,
 * edits, deletions and join notices are ignored; Slack's retries
 * (deliveries.ts) and the app_mention/message pair of one mention are delivered once, also
 * across bot processes (the claim is in the shared store).
 */

import type { App } from "@slack/bolt";
import type { HandleResult, LessonMode, Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { DELIVERY_TTL_MS } from "../lesson/deliveries.ts";
import type { IncomingFile } from "../lesson/images.ts";
import { startInPane } from "./agent-pane.ts";
import { type HandlerContext, slackActor } from "./context.ts";
import { deliveryBusy, recordFirst } from "./deliveries.ts";
import { slackTextToPlain } from "./text.ts";
import { encodeSlackThreadId } from "./thread-id.ts";

/** The fields of a message/app_mention event we read (payloads are checked, not trusted). */
interface TypedMessage {
	teamId: string;
	channelId: string;
	ts: string;
	threadTs: string | undefined;
	userId: string;
	text: string;
	/** Files shared with the message (subtype file_share). */
	files: IncomingFile[];
	/** Ids of shared files Slack sent without their details (Slack Connect: `file_access: "check_file_info"`). */
	stubs: string[];
	/** Typed in the member's DM with the app (`channel_type: "im"`: the agent pane's threads among them). */
	im: boolean;
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
		files: filesOf(event.files),
		stubs: fileStubsOf(event.files),
		im: event.channel_type === "im" && channelId.startsWith("D"),
	};
}

/** Slack's file host: url_private and url_private_download point here. */
export const SLACK_FILE_ORIGIN = "https://files.slack.com";

const isFileObject = (f: unknown): f is Record<string, unknown> => typeof f === "object" && f !== null;

/**
 * Slack Connect shares a file as its id alone, with `file_access: "check_file_info"`: "an additional API call"
 * (files.info) gives its details (Slack's Slack Connect guide, "Additional check required to access file info").
 */
const needsLookup = (f: Record<string, unknown>): boolean =>
	f.file_access === "check_file_info" && str(f.id) !== undefined;

/** The ids of a message's files that must be looked up with files.info. */
export function fileStubsOf(files: unknown): string[] {
	return Array.isArray(files)
		? files
				.filter(isFileObject)
				.filter(needsLookup)
				.map((f) => String(f.id))
		: [];
}

/** The files of a message event (url_private is fetched with the bot token; nothing here is trusted). */
export function filesOf(files: unknown): IncomingFile[] {
	if (!Array.isArray(files)) return [];
	return files
		.filter(isFileObject)
		.filter((f) => !needsLookup(f))
		.map((f) => ({
			url: str(f.url_private_download) ?? str(f.url_private),
			...(str(f.name) ? { name: str(f.name) } : {}),
			...(str(f.mimetype) ? { declaredType: str(f.mimetype) } : {}),
			...(typeof f.size === "number" ? { declaredSize: f.size } : {}),
		}));
}

/** True for a file declared or named as a PDF (its bytes are checked after the download). */
export const isPdfFile = (f: IncomingFile): boolean =>
	f.declaredType?.toLowerCase() === "application/pdf" || (f.name?.toLowerCase().endsWith(".pdf") ?? false);

/**
 * A mention that adds the shared file to the library: `material add`, then the name it takes (optional). The
 * words are matched alone and the name is the rest of the text (a pattern taking both backtracked on spaces).
 */
function libraryAdd(topic: string): { name?: string } | undefined {
	const head = /^material add(?=\s|$)/i.exec(topic);
	if (!head) return undefined;
	const name = topic.slice(head[0].length).trim();
	return name ? { name } : {};
}

/** A text or Markdown file shared with a start (its bytes are checked when it is read, as a PDF's are). */
export const isTextFile = (f: IncomingFile): boolean =>
	(f.declaredType?.toLowerCase().startsWith("text/") ?? false) || /\.(?:txt|md|markdown)$/i.test(f.name ?? "");

/** Register message and app_mention handlers. */
export function registerEvents(app: App, ctx: HandlerContext): void {
	// True the first time a message is seen; Slack may deliver one message as app_mention and message, and retry both.
	const keyOf = (m: TypedMessage): string => `slack:message:${m.channelId}:${m.ts}`;
	// "busy": its twin is with another process that may die before recording it; Slack retries this one later.
	const firstTime = async (m: TypedMessage): Promise<boolean> => {
		const verdict = await ctx.controller.deliveries.claim(keyOf(m), DELIVERY_TTL_MS.message);
		if (verdict === "busy") throw deliveryBusy(keyOf(m));
		return verdict === "first";
	};
	const done = (m: TypedMessage) => ctx.controller.deliveries.confirm(keyOf(m), DELIVERY_TTL_MS.message);
	const threadOf = (m: TypedMessage): string | undefined =>
		m.threadTs && m.threadTs !== m.ts
			? encodeSlackThreadId({ teamId: m.teamId, channelId: m.channelId, threadTs: m.threadTs })
			: undefined;
	// A name, so answered cards and the tutor say "ada", not a user id (cached; none when users.info fails).
	const who = async (userId: string): Promise<Participant> => {
		const name = await ctx.admins.displayName(userId);
		return name ? { id: userId, name } : { id: userId };
	};
	// A Slack Connect file's details, from files.info; unreadable (no URL: refused as such) when Slack says no.
	const lookUp = async (id: string): Promise<IncomingFile> => {
		try {
			const { file } = await ctx.client.files.info({ file: id });
			return filesOf([file])[0] ?? { url: undefined };
		} catch (error) {
			ctx.logger.warn({ err: error, file: id }, "slack: files.info failed for a shared file");
			return { url: undefined };
		}
	};
	const deliver = async (m: TypedMessage, threadId: string): Promise<HandleResult> => {
		const by = await who(m.userId);
		const target = { channelId: m.channelId, userId: m.userId, threadTs: m.threadTs };
		const files = m.stubs.length > 0 ? [...m.files, ...(await Promise.all(m.stubs.map(lookUp)))] : m.files;
		// The actor hears (ephemerally) what did not reach the tutor: pictures, or a message the store could not save.
		const attached = { files, actor: slackActor(ctx, by, target) };
		return ctx.controller.typed(threadId, by, slackTextToPlain(m.text), attached);
	};
	const hasContent = (m: TypedMessage): boolean =>
		slackTextToPlain(m.text) !== "" || m.files.length > 0 || m.stubs.length > 0;

	// Slack is answered once the message is with the tutor (bounded), so a process killed before that leaves the
	// event unanswered and Slack retries it (deliveries.ts).
	app.event("message", async ({ body, event, context }) => {
		const m = typedMessage(body as unknown as Record<string, unknown>, event as unknown as Record<string, unknown>);
		const threadId = m ? threadOf(m) : undefined;
		if (!m || !threadId || !hasContent(m) || !(await firstTime(m))) return;
		await recordFirst(ctx, context, "a message", async () => {
			const result = await deliver(m, threadId);
			if (!result.ok && result.code === "unknown-session" && m.im && m.threadTs) {
				// A thread of the member's DM with the app that holds no lesson (the agent pane): what they typed starts one.
				await done(m);
				const thread = { teamId: m.teamId, channelId: m.channelId, threadTs: m.threadTs, userId: m.userId };
				return void (await startInPane(ctx, thread, await who(m.userId), slackTextToPlain(m.text)));
			}
			// Not a lesson's thread: leave the message unclaimed, so its app_mention twin (if it mentions us) can
			// start a lesson there.
			if (!result.ok && result.code === "unknown-session") await ctx.controller.deliveries.release(keyOf(m));
			else await done(m);
		});
	});

	app.event("app_mention", async ({ body, event, context }) => {
		const m = typedMessage(body as unknown as Record<string, unknown>, event as unknown as Record<string, unknown>);
		if (!m || !(await firstTime(m))) return;
		await recordFirst(ctx, context, "a mention", () => mention(m));
	});

	/** A mention: in a lesson's thread a message to the tutor; anywhere else it starts a lesson. */
	async function mention(m: TypedMessage): Promise<void> {
		const threadId = threadOf(m);
		if (threadId && hasContent(m)) {
			const result = await deliver(m, threadId);
			if (result.ok || result.code !== "unknown-session") return void (await done(m));
		}
		await done(m);
		let mode: LessonMode | undefined;
		const topic = slackTextToPlain(m.text)
			.split(" ")
			.filter((w) => {
				const lower = w.toLowerCase();
				if (lower === "--group") mode = "group";
				else if (lower === "--solo") mode = "solo";
				else return w !== "";
				return false;
			})
			.join(" ");
		const locale = await ctx.admins.locale(m.userId);
		const target = { channelId: m.channelId, userId: m.userId, threadTs: m.threadTs };
		const actor = slackActor(ctx, await who(m.userId), target, undefined, locale);
		if (topic === "") return actor.notify(t(locale ?? DEFAULT_LOCALE, "slack.mentionTopic"));
		// A PDF shared with the start message is the lesson's material (downloaded from files.slack.com only).
		const files = m.stubs.length > 0 ? [...m.files, ...(await Promise.all(m.stubs.map(lookUp)))] : m.files;
		// `@bot material add [name]` with a file shared: the file joins the workspace's library (slash commands carry none).
		const adding = libraryAdd(topic);
		if (adding) {
			const file = files[0];
			const name = adding.name;
			const command = { kind: "material-add" as const, ...(file ? { file: { file } } : {}), ...(name ? { name } : {}) };
			const said = ctx.controller.library
				? await ctx.controller.library.run(actor, m.teamId, command)
				: t(locale ?? DEFAULT_LOCALE, "library.off");
			if (said !== undefined) await actor.notify(said);
			return;
		}
		const pdf = files.find(isPdfFile) ?? files.find(isTextFile);
		const started = await ctx.controller.start(
			actor,
			{ community: m.teamId, channelId: m.channelId },
			{ topic, ...(mode ? { mode } : {}), ...(pdf ? { material: { file: pdf } } : {}) },
		);
		// The starter hears what the lesson teaches from and what in it was neutralised.
		if (started.ok && started.material) {
			const { name, pages, warnings, unit } = started.material;
			const key = unit === "part" ? "command.materialParts" : "command.material";
			const line = t(locale ?? DEFAULT_LOCALE, key, { name, pages: String(pages) });
			await actor.notify([line, ...warnings].join("\n"));
		}
	}
}
