/**
 * Recorded Discord payloads (testkit/fixtures/recorded/discord: discord-api-docs' examples, interactions and
 * gateway messages captured by other libraries' authors and by the Chat SDK's recorder) dispatched through the
 * fake Discord's gateway to the real discord.js client and the adapter: what the bot does with each. A click or a
 * modal recorded on another app's message is pointed at a lesson's card (its control's id, the card and its
 * thread); a message at the lesson's thread. What a replay rewrites is listed in the manifest (and checked here).
 * The tutor is an in-test one that keeps the engine's rule that only a solo lesson's learner answers.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as discordClient from "../../src/adapters/discord/client.ts";
import { createDiscordAdapter, type DiscordAdapter } from "../../src/adapters/discord/index.ts";
import { createMemoryStateStore } from "../../src/agent/index.ts";
import type { HandleResult, LearnerEvent } from "../../src/core/contracts/events.ts";
import { type FakeDiscord, type FakeInteraction, startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { type RecordingLogger, recordingLogger, waitForControl } from "../adapters/discord/helpers.ts";
import { FakeTutor } from "../adapters/lesson/fake-tutor.ts";
import { changedPaths, entriesOf, listedAdaptations, type RecordedEntry, readObject } from "./payloads.ts";

type Json = Record<string, unknown>;

/** The in-test tutor with the engine's rule for solo lessons: only the learner answers. */
class LessonTutor extends FakeTutor {
	override async handle(sessionId: string, event: LearnerEvent): Promise<HandleResult> {
		const lesson = this.sessions.get(sessionId);
		if (lesson?.mode === "solo" && "by" in event && event.type !== "message" && event.by.id !== lesson.learner.id) {
			this.handled.push({ sessionId, event });
			return { ok: false, code: "not-allowed", message: "Only the learner answers in a solo lesson." };
		}
		return await super.handle(sessionId, event);
	}
}

/**
 * discord.js 14 throws on an interaction without `entitlements` or `authorizing_integration_owners` (discord-api-docs'
 * own examples and captures from before 2024 lack them): the payload was dropped with a `reduce` of undefined. The
 * adapter fills them in before discord.js reads the payload (completeInteraction, src/adapters/discord/client.ts,
 * on another branch of issue 27 at the time of writing): until it is there, those replays are expected to fail.
 */
const COMPLETES_INTERACTIONS = "completeInteraction" in discordClient;
const incomplete = (payload: Json) =>
	!Array.isArray(payload.entitlements) ||
	typeof payload.authorizing_integration_owners !== "object" ||
	payload.authorizing_integration_owners === null;

let fake: FakeDiscord;
let adapter: DiscordAdapter;
let logger: RecordingLogger;
const tutor = new LessonTutor();
/** The lesson thread and its session id; the card ids of its quiz (two buttons) and of its ask (Answer). */
let thread = "";
let sessionId = "";
let quizCard = "";
let askCard = "";
let sentinels = 0;

beforeAll(async () => {
	fake = await startFakeDiscord();
	logger = recordingLogger();
	adapter = createDiscordAdapter({
		tutor,
		renderer: stubRenderer(undefined),
		logger,
		state: createMemoryStateStore(),
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	await adapter.start();
	fake.slash({
		user: fake.users.learner,
		channelId: fake.ids.general,
		subcommand: "start",
		options: { topic: "recorded" },
	});
	thread = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread")).id;
	sessionId = (await fake.waitFor(() => tutor.started[0], "the lesson")).sessionId;
}, 30_000);
afterAll(async () => {
	await adapter?.stop();
	await fake?.close();
});

/** A fresh open quiz (two buttons) and ask (Answer) in the lesson; `learner`: whose solo lesson it is now. */
async function openQuestions(learner: string, n: number): Promise<void> {
	const lesson = tutor.sessions.get(sessionId);
	if (!lesson) throw new Error("no lesson");
	lesson.learner = { id: learner };
	lesson.pending = [
		{ toolCallId: `q${n}`, kind: "quiz" },
		{ toolCallId: `a${n}`, kind: "ask", input: { question: "Why do you think so?" } },
	];
	const options = ["a half", "a third"];
	await tutor.emit({
		type: "quiz",
		sessionId,
		toolCallId: `q${n}`,
		input: { question: "Which is larger?", options, correctAnswer: "a half" },
	});
	await tutor.emit({ type: "ask", sessionId, toolCallId: `a${n}`, input: { question: "Why do you think so?" } });
	quizCard = (await waitForControl(fake, thread, `lh:pick:q${n}:`)).id;
	askCard = (await waitForControl(fake, thread, `lh:open:a${n}`)).id;
}

const obj = (v: unknown): Json => {
	if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
	return v as Json;
};
const userOf = (payload: Json): string => String(obj(obj(payload.member ?? {}).user ?? payload.user).id);

/** Point an interaction at the fake's guild and a channel of it (a thread's parent stays the general channel). */
function inGuild(payload: Json, channelId: string): void {
	payload.guild_id = fake.guild.id;
	payload.channel_id = channelId;
	if (payload.guild) obj(payload.guild).id = fake.guild.id;
	if (payload.channel) {
		const channel = obj(payload.channel);
		channel.id = channelId;
		if (channel.guild_id !== undefined) channel.guild_id = fake.guild.id;
		if (channel.parent_id !== undefined) channel.parent_id = fake.ids.general;
	}
}

/** Point a recorded click at a card of the lesson: its control, the card and its thread (its follow-ups are ours). */
function onCard(payload: Json, cardId: string, customId: string): void {
	inGuild(payload, thread);
	payload.application_id = fake.applicationId;
	obj(payload.data).custom_id = customId;
	const message = obj(payload.message);
	message.id = cardId;
	if (message.channel_id !== undefined) message.channel_id = thread;
}

interface Dispatched {
	interaction: FakeInteraction;
	handled: LearnerEvent[];
}

/** Poll `check` (every 10 ms, at most 10 s): for what no fake call signals (a log line). */
async function until<T>(check: () => T | undefined | false, label: string): Promise<T> {
	for (let i = 0; i < 1000; i++) {
		const value = check();
		if (value) return value;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error(`timed out waiting for ${label}`);
}

/** Dispatch a recorded interaction (its token registered with the fake, so its answers are recorded). */
/** Tokens replayed so far: the fake knows an interaction by its token. */
const tokens = new Set<string>();

/**
 * Some recorded payloads share a token (the Chat SDK's authors made two clicks from one recording; the docs'
 * examples use a placeholder): Discord never sends one twice, and the fake keys interactions by it, so a repeated
 * token is made unique.
 */
function uniqueToken(payload: Json, entry: RecordedEntry): void {
	const token = String(payload.token);
	if (tokens.has(token)) payload.token = `${token}-${entry.file.replace(/\W+/g, "-")}`;
	tokens.add(String(payload.token));
}

async function interact(entry: RecordedEntry, payload: Json, original: Json): Promise<Dispatched> {
	uniqueToken(payload, entry);
	expect(changedPaths(original, payload).sort()).toEqual(listedAdaptations(entry));
	const token = String(payload.token);
	const channelId = fake.channels.has(String(payload.channel_id)) ? String(payload.channel_id) : fake.ids.general;
	const messageId = payload.message ? String(obj(payload.message).id) : undefined;
	const kinds = { 2: "command", 3: "button", 5: "modal" } as const;
	const interaction: FakeInteraction = {
		id: String(payload.id),
		token,
		kind: kinds[payload.type as 2 | 3 | 5] ?? "command",
		user: { id: userOf(payload), username: "recorded" },
		channelId,
		guildId: fake.guild.id,
		createdAt: Date.now(),
		...(messageId && fake.messages.has(messageId) ? { messageId } : {}),
		followupIds: [],
		rejectedCallbacks: 0,
	};
	fake.interactions.set(token, interaction);
	const before = tutor.handled.length;
	const logged = logger.entries.length;
	fake.dispatch("INTERACTION_CREATE", payload);
	// The router logs every interaction once it is done with it (answered, refused or ignored).
	await until(
		() =>
			logger.entries.some(
				(e) => e.message === "discord: interaction handled" && e.fields.interactionId === payload.id,
			) || dropped(logged),
		`interaction ${entry.file} to be handled`,
	);
	expect(dropped(logged)).toBe(false);
	return { interaction, handled: tutor.handled.slice(before).map((h) => h.event) };
}

/** discord.js threw on the payload and the adapter dropped it (logged since entry `from`). */
const dropped = (from: number) =>
	logger.entries.slice(from).some((e) => e.message === "discord: dropped a malformed gateway payload");

/** The ephemeral reply an interaction got (its first response, type 4). */
function ephemeralReply(d: Dispatched): string {
	expect(d.interaction.responseType).toBe(4);
	const message = fake.messages.get(d.interaction.originalMessageId ?? "");
	expect(message?.visibleTo).toBe(d.interaction.user.id);
	return message?.content ?? "";
}

interface InteractionCase {
	route?: (payload: Json) => Promise<void> | void;
	expect: (d: Dispatched, payload: Json) => void | Promise<void>;
}

const HELP = /\/lesson start/;
const CASES: Record<string, InteractionCase> = {
	// A chat-input command as discord-api-docs shows it: no channel, no application_id, no entitlements.
	"discord/interactions/slash-command-docs-no-channel.json": {
		route: (p) => {
			inGuild(p, fake.ids.general);
			obj(p.data).name = "lesson";
		},
		// Its recorded option is not one of /lesson's: help, privately.
		expect: (d) => expect(ephemeralReply(d)).toMatch(HELP),
	},
	"discord/interactions/slash-command-guild-with-channel.json": {
		route: (p) => {
			inGuild(p, fake.ids.general);
			p.application_id = fake.applicationId;
			obj(p.data).name = "lesson";
		},
		expect: (d) => expect(ephemeralReply(d)).toMatch(HELP),
	},
	// Context-menu commands: the bot registers none; handled (not dropped) and left unanswered.
	"discord/interactions/user-command-docs.json": {
		route: (p) => inGuild(p, fake.ids.general),
		expect: (d) => {
			expect(d.interaction.responseType).toBeUndefined();
			expect(d.handled).toEqual([]);
		},
	},
	"discord/interactions/message-command-docs.json": {
		route: (p) => inGuild(p, fake.ids.general),
		expect: (d) => {
			expect(d.interaction.responseType).toBeUndefined();
			expect(d.handled).toEqual([]);
		},
	},
	"discord/interactions/button-guild-thread.json": {
		route: async (p) => {
			await openQuestions(userOf(p), 1);
			onCard(p, quizCard, "lh:pick:q1:0");
		},
		expect: (d, p) => {
			// Deferred (the card is updated later), once the tutor has the answer.
			expect(d.interaction.responseType).toBe(6);
			expect(d.handled).toEqual([
				{ type: "answer", toolCallId: "q1", value: 0, by: expect.objectContaining({ id: userOf(p) }) },
			]);
		},
	},
	"discord/interactions/button-other-user.json": {
		route: async (p) => {
			await openQuestions("1033044521375764530", 2);
			onCard(p, quizCard, "lh:pick:q2:1");
		},
		// Someone else's solo lesson: refused, and told whose it is, privately.
		expect: async (d) => {
			expect(d.interaction.responseType).toBe(6);
			expect(d.handled).toEqual([
				{ type: "answer", toolCallId: "q2", value: 1, by: expect.objectContaining({ id: "9876543210987654321" }) },
			]);
			const notice = await fake.waitFor(
				() => fake.messages.get(d.interaction.followupIds[0] ?? ""),
				"the private refusal",
			);
			expect(notice.visibleTo).toBe("9876543210987654321");
			expect(notice.content).toContain("<@1033044521375764530>");
		},
	},
	// Another app's button in a thread the bot does not know: refused with a clear word, nothing recorded.
	"discord/interactions/button-guild-thread-info.json": {
		expect: (d) => {
			expect(ephemeralReply(d)).toMatch(/not one I know/);
			expect(d.handled).toEqual([]);
		},
	},
	// A button in a direct message: lessons run in servers.
	"discord/interactions/button-dm.json": {
		expect: (d) => {
			expect(ephemeralReply(d)).toMatch(/Lessons run in servers/);
			expect(d.handled).toEqual([]);
		},
	},
	// A click whose message is only an id (as recorded), on the lesson's Answer button: the form opens.
	"discord/interactions/button-thread-channel-post.json": {
		route: async (p) => {
			await openQuestions(userOf(p), 3);
			onCard(p, askCard, "lh:open:a3");
		},
		expect: (d) => {
			expect(d.interaction.responseType).toBe(9);
			expect(d.interaction.modal?.custom_id).toBe("lh:modal:a3");
		},
	},
	// A modal submitted in a guild channel, its text input as recorded: the typed answer reaches the lesson.
	"discord/interactions/modal-submit-guild.json": {
		route: async (p) => {
			await openQuestions(userOf(p), 4);
			inGuild(p, thread);
			p.application_id = fake.applicationId;
			obj(p.data).custom_id = "lh:modal:a4";
		},
		expect: async (d) => {
			expect(d.handled).toEqual([
				{
					type: "reply",
					toolCallId: "a4",
					text: "Hello, dad",
					by: expect.objectContaining({ id: "290483761559240704" }),
				},
			]);
			// Not from a card: a private deferred reply, then edited to say it was recorded.
			expect(d.interaction.responseType).toBe(5);
			const reply = await fake.waitFor(
				() => fake.messages.get(d.interaction.originalMessageId ?? "")?.content || undefined,
				"the edited reply",
			);
			expect(reply).toMatch(/recorded/i);
		},
	},
};

/** A message the lesson's learner types after a replayed one: once it reaches the tutor, the replayed one had its turn. */
async function sentinel(): Promise<void> {
	const text = `sentinel ${++sentinels}`;
	fake.say({ user: fake.users.learner, channelId: thread, content: text });
	await until(
		() => tutor.handled.some((h) => h.event.type === "message" && h.event.text === text),
		"the sentinel message",
	);
}

interface MessageCase {
	/** The lesson's thread, or (for a message outside a thread) the general channel. */
	into: "thread" | "channel";
	/** Nothing may reach the lesson (checked once a later message did). */
	ignored?: true;
	expect: (typed: LearnerEvent[], payload: Json) => void | Promise<void>;
}

const typedAs = (text: string) => (typed: LearnerEvent[], payload: Json) =>
	expect(typed).toEqual([{ type: "message", text, by: expect.objectContaining({ id: obj(payload.author).id }) }]);
const nothing = (typed: LearnerEvent[]) => expect(typed).toEqual([]);

const MESSAGES: Record<string, MessageCase> = {
	// A mention in a text channel is not a lesson's: lessons start with /lesson start.
	"discord/gateway/message-create-mention.json": { into: "channel", ignored: true, expect: nothing },
	"discord/gateway/message-create-mention-test.json": { into: "channel", ignored: true, expect: nothing },
	"discord/gateway/message-create-thread-reply.json": { into: "thread", expect: typedAs("Hey") },
	"discord/gateway/message-create-thread-dm-me.json": { into: "thread", expect: typedAs("DM me") },
	"discord/gateway/message-create-bot-embed.json": { into: "thread", ignored: true, expect: nothing },
	"discord/gateway/message-create-guild-text.json": { into: "thread", expect: typedAs("blah bljhshADh blah") },
	// Discord's mentions reach the tutor as written (<@id>), unlike Slack's, which are decoded at the edge.
	"discord/gateway/message-create-reply-to-attachment.json": {
		into: "thread",
		expect: typedAs("<@274937240109711361> <@535445810146574336> 💀"),
	},
	"discord/gateway/message-create-image-attachment.json": {
		into: "thread",
		// The text goes to the lesson; the picture is not read (this tutor's model sees none), and the learner is
		// told so in a reply that pings no one. Its CDN URL is never fetched.
		expect: async (typed, payload) => {
			typedAs("was ist das?")(typed, payload);
			const reply = await fake.waitFor(
				() =>
					fake.calls.find(
						(c) =>
							c.method === "POST" &&
							c.path === `/channels/${thread}/messages` &&
							obj(obj(c.body ?? {}).message_reference ?? {}).message_id === payload.id,
					),
				"the notice about the picture",
			);
			expect(String(obj(reply.body).content)).toMatch(/cannot see pictures.*Your text went to the tutor/);
			expect(fake.attachmentFetches).toEqual([]);
		},
	},
};

describe("recorded Discord interactions, through the gateway to discord.js and the adapter", {
	timeout: 20_000,
}, () => {
	const entries = entriesOf("discord-interaction");

	for (const entry of entries) {
		const original = readObject(entry.file);
		const replay = async () => {
			const c = CASES[entry.file];
			if (!c) throw new Error(`no expectation for ${entry.file}`);
			const payload = structuredClone(original);
			await c.route?.(payload);
			await c.expect(await interact(entry, payload, original), payload);
		};
		// Until the adapter completes such payloads, discord.js drops them (see COMPLETES_INTERACTIONS).
		if (incomplete(original) && !COMPLETES_INTERACTIONS)
			it.fails(`${entry.file} (dropped: incomplete payload)`, replay);
		else it(entry.file, replay);
	}

	it("has an expectation for every recorded interaction and no other", () => {
		expect(Object.keys(CASES).sort()).toEqual(entries.map((e) => e.file).sort());
	});
});

describe("recorded Discord gateway messages (MESSAGE_CREATE)", { timeout: 20_000 }, () => {
	const entries = entriesOf("discord-dispatch");

	it.each(entries.map((e) => [e.file, e] as const))("%s", async (file, entry) => {
		const c = MESSAGES[file];
		if (!c) throw new Error(`no expectation for ${file}`);
		expect(entry.event).toBe("MESSAGE_CREATE");
		const original = readObject(entry.file);
		const payload = structuredClone(original);
		payload.guild_id = fake.guild.id;
		payload.channel_id = c.into === "thread" ? thread : fake.ids.general;
		expect(changedPaths(original, payload).sort()).toEqual(listedAdaptations(entry));
		// Whose lesson it is: the author's (their pictures are read only in their own lesson).
		tutor.sessions.get(sessionId)!.learner = { id: String(obj(payload.author).id) };
		const before = tutor.handled.length;
		const typed = () =>
			tutor.handled
				.slice(before)
				.map((h) => h.event)
				.filter((e) => !(e.type === "message" && e.text.startsWith("sentinel ")));
		fake.dispatch("MESSAGE_CREATE", payload);
		if (c.ignored) await sentinel();
		else await until(() => typed().length > 0, `${file} to reach the lesson`);
		await c.expect(typed(), payload);
	});

	it("has an expectation for every recorded message and no other", () => {
		expect(Object.keys(MESSAGES).sort()).toEqual(entries.map((e) => e.file).sort());
	});
});
