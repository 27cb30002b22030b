/**
 * The chat platforms under the contract suite: Discord (the real discord.js client against the fake Discord) and
 * Slack (real Bolt over signed HTTP against the fake Slack), each with the real tutor, the learning service and
 * SQLite files (test/fixtures/profile-stack.ts). A contract test speaks to one `Chat`: people start lessons, run
 * `/lesson …` lines, type in a lesson's thread and click a card's controls; it reads what each person saw. What
 * differs by platform (option names, thread ids, where a private reply goes) stays in here.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { type BudgetRouter, createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { openStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import {
	type FakeDiscord,
	type FakeMessage,
	type FakeUser,
	messageControls,
	startFakeDiscord,
} from "../../../testkit/fakes/discord.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { snowflake } from "../../../testkit/fixtures/discord/payloads.ts";
import { type ScriptedReply, scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { type LearnerBackend, openLearnerBackend, type TestClock, testClock } from "../../fixtures/profile-stack.ts";
import { type RecordingLogger, recordingLogger } from "../discord/helpers.ts";
import { type Running, startAdapter } from "../slack/harness.ts";

/** The four people of every platform: `admin` is one (Manage Server; a Slack workspace admin). */
export type PersonKey = "learner" | "other" | "admin" | "dan";

/** A person as the engine records them. */
export interface Person {
	id: string;
	name: string;
}

/** A message someone saw (a card, a reply), as it reads now. */
export interface Card {
	/** The message's id (Discord) or ts (Slack). */
	ref: string;
	/** Where it is: the channel (a thread or DM on Discord; a channel or DM on Slack). */
	where: string;
	text: string;
	controls: string[];
	labels: string[];
	/** Seen by this person only. */
	privateTo?: string | undefined;
	/** The thread it is in (Slack: its parent's ts). */
	thread?: string | undefined;
	/** Files that came with it (Discord attachments; Slack uploads to the person's DM since the command). */
	files: Array<{ name: string; bytes: Buffer | undefined }>;
}

/** One platform, started; see the file comment. */
export interface Chat {
	name: "discord" | "slack";
	/** The guild or workspace id. */
	community: string;
	/** The channel lessons start in. */
	channel: string;
	people: Record<PersonKey, Person>;
	/** The engine side (reopened by restart()). */
	readonly backend: LearnerBackend;
	/** The adapter's own state store (reopened by restart()). */
	readonly state: StateStore;
	events: TutorEvent[];
	logger: RecordingLogger;
	dir: string;
	/** `/lesson start` (group, language) in the main channel; the lesson's session id and the private reply. */
	start(
		who: PersonKey,
		topic: string,
		options?: { group?: boolean; language?: string },
	): Promise<{ sessionId: string; reply: Card }>;
	/** A `/lesson` line as Slack spells it ("config member_tokens_per_day 100"); in a lesson's thread on Discord. */
	command(who: PersonKey, line: string, sessionId?: string): Promise<Card>;
	say(who: PersonKey, sessionId: string, text: string): Promise<void>;
	/** The `nth` card of a lesson carrying a control of `toolCallId` (waits for it). */
	card(sessionId: string, toolCallId: string, nth?: number): Promise<Card>;
	/** A card as it reads now. */
	view(card: Card): Card;
	/** Click (or pick) `control` of a card; resolves once the platform has its first response. */
	click(who: PersonKey, card: Card, control: string): Promise<void>;
	/** Open the answer form of `control`; its title. With `text`, also submit it. */
	form(who: PersonKey, card: Card, control: string, text?: string): Promise<string>;
	/** What a lesson's thread shows, oldest first (texts as they read now). */
	posts(sessionId: string): string[];
	/** Every message anywhere whose text matches (nudges in threads or DMs). */
	find(pattern: RegExp): Card[];
	/** The private notices `who` got, oldest first. */
	notices(who: PersonKey): string[];
	waitFor<T>(check: () => T | undefined | false | null, what: string, timeoutMs?: number): Promise<T>;
	sendReminders(): Promise<number>;
	/** Every finished queued post (Discord's adapter can say; Slack posts before it answers). */
	flush(): Promise<void>;
	/** Payloads outside the platform's limits and refused API calls. */
	problems(): unknown[];
	/** The API calls made so far whose method (Slack) or `METHOD /path` (Discord) contains `method`: their params or body. */
	calls(method: string): Array<Record<string, unknown>>;
	/** Stop the adapter and the engine, then (after `between`, if given) open both again on the same files. */
	restart(between?: () => Promise<void>): Promise<void>;
	close(): Promise<void>;
}

/** How a contract opens a platform. */
export interface ChatOptions {
	model: MockLanguageModelV3;
	budgets?: boolean;
	/** Each person's client language (Discord's interaction locale; Slack's users.info locale). */
	locales?: Partial<Record<PersonKey, string>>;
	clock?: TestClock;
	/** The tutor on the test's clock too. */
	tutorClock?: boolean;
	png?: Buffer;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** All texts of Slack blocks, in order (section, context and button texts). */
function slackText(message: { text?: string; blocks?: unknown }): string {
	const out: string[] = [message.text ?? ""];
	const walk = (v: unknown): void => {
		if (Array.isArray(v)) v.forEach(walk);
		else if (v && typeof v === "object")
			for (const [k, x] of Object.entries(v)) k === "text" && typeof x === "string" ? out.push(x) : walk(x);
	};
	walk(message.blocks);
	return out.join("\n");
}

/** The action elements of Slack blocks. */
const slackControls = (blocks: unknown) =>
	((blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id?: string; text?: { text?: string } }> }>)
		.filter((b) => b.type === "actions")
		.flatMap((b) => b.elements ?? []);

type Row = { components?: Array<{ custom_id?: string; label?: string }> };
const discordCard = (m: FakeMessage): Card => {
	const parts = messageControls(m) as NonNullable<Row["components"]>;
	return {
		ref: m.id,
		where: m.channelId,
		text: m.text,
		controls: parts.map((c) => c.custom_id ?? ""),
		labels: parts.map((c) => c.label ?? ""),
		privateTo: m.visibleTo,
		files: m.attachments.map((a) => ({ name: a.filename, bytes: a.data })),
	};
};

/** Discord options from a Slack-style line: "start --group language:es topic", "config k v k v", "remind on". */
function discordOptions(sub: string, words: string[]): Record<string, string | number | boolean> {
	const value = (v: string) => (/^\d+$/.test(v) ? Number(v) : v === "on" ? true : v === "off" ? false : v);
	if (sub === "start") {
		const options: Record<string, string> = {};
		const topic = words.filter((w) => {
			if (w === "--group") options.mode = "group";
			else if (w.startsWith("language:")) options.language = w.slice(9);
			else return true;
			return false;
		});
		return { ...options, topic: topic.join(" ") };
	}
	if (sub === "remind") return { on: words[0] === "on" };
	const options: Record<string, string | number | boolean> = {};
	for (let i = 0; i + 1 < words.length; i += 2) options[words[i] ?? ""] = value(words[i + 1] ?? "");
	return options;
}

async function onDiscord(options: ChatOptions, clock: TestClock, budgets: BudgetRouter | undefined): Promise<Chat> {
	const dir = mkdtempSync(join(tmpdir(), "lh-contract-discord-"));
	const fake: FakeDiscord = await startFakeDiscord();
	const dan: FakeUser = { id: snowflake(), username: "dan" };
	fake.members.push({ user: dan, roles: [] });
	const users: Record<PersonKey, FakeUser> = { ...fake.users, dan };
	for (const [key, locale] of Object.entries(options.locales ?? {}))
		users[key as PersonKey] = { ...users[key as PersonKey], locale };
	const logger = recordingLogger();
	const events: TutorEvent[] = [];
	let parts: { backend: LearnerBackend; state: StateStore; adapter: DiscordAdapter } | undefined;
	const open = async () => {
		const backend = await openLearnerBackend(dir, options.model, clock, budgets?.budget, options);
		backend.tutor.subscribe((e) => void events.push(e));
		const state = openStateStore(`sqlite://${join(dir, "discord.sqlite")}`, "discord");
		const adapter = createDiscordAdapter({
			tutor: backend.tutor,
			renderer: stubRenderer(options.png ?? PNG),
			logger,
			state,
			learning: { learning: backend.learning },
			...(budgets ? { budgets } : {}),
			config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
		});
		await adapter.start();
		parts = { backend, state, adapter };
	};
	const shut = async () => {
		await parts?.adapter.stop();
		await parts?.backend.close();
		await parts?.state.close();
	};
	await open();
	const live = () => {
		if (!parts) throw new Error("not started");
		return parts;
	};
	const threadOf = (sessionId: string) => sessionId.split(":")[2] ?? "";
	const replyTo = async (it: ReturnType<FakeDiscord["slash"]>, what: string) =>
		discordCard(
			await fake.waitFor(() => {
				const m = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
				return m && (m.text !== "" || m.attachments.length > 0 || m.components.length > 0) ? m : undefined;
			}, what),
		);
	const person = (u: FakeUser): Person => ({ id: u.id, name: u.username });
	return {
		name: "discord",
		community: fake.guild.id,
		channel: fake.ids.general,
		people: {
			learner: person(users.learner),
			other: person(users.other),
			admin: person(users.admin),
			dan: person(dan),
		},
		get backend() {
			return live().backend;
		},
		get state() {
			return live().state;
		},
		events,
		logger,
		dir,
		async start(who, topic, { group, language } = {}) {
			const threads = fake.createdThreads().length;
			const words = [...(group ? ["--group"] : []), ...(language ? [`language:${language}`] : []), topic];
			const it = fake.slash({
				user: users[who],
				channelId: fake.ids.general,
				subcommand: "start",
				options: discordOptions("start", words),
			});
			const thread = await fake.waitFor(() => fake.createdThreads()[threads], `the thread of ${topic}`);
			return { sessionId: `discord:${fake.guild.id}:${thread.id}`, reply: await replyTo(it, "the start reply") };
		},
		async command(who, line, sessionId) {
			const [sub = "", ...words] = line.split(" ").filter(Boolean);
			const options = discordOptions(sub, words);
			const channelId = sessionId ? threadOf(sessionId) : fake.ids.general;
			const it = fake.slash({ user: users[who], channelId, subcommand: sub, ...(words.length ? { options } : {}) });
			return replyTo(it, `the reply to ${line}`);
		},
		async say(who, sessionId, content) {
			fake.say({ user: users[who], channelId: threadOf(sessionId), content });
		},
		card: (sessionId, toolCallId, nth = 0) =>
			fake
				.waitFor(
					() =>
						fake
							.channelMessages(threadOf(sessionId))
							.filter((m) => discordCard(m).controls.some((c) => c.split(":")[2] === toolCallId))[nth],
					`card ${nth} of ${toolCallId}`,
					20_000,
				)
				.then(discordCard),
		view: (card) => {
			const m = fake.messages.get(card.ref);
			return m ? discordCard(m) : card;
		},
		async click(who, card, control) {
			const it = control.startsWith("lh:select:")
				? fake.select({ user: users[who], messageId: card.ref, customId: control, values: ["0"] })
				: fake.click({ user: users[who], messageId: card.ref, customId: control });
			await fake.waitFor(() => it.responseType !== undefined || undefined, `the ack of ${control}`);
		},
		async form(who, card, control, text) {
			const opened = fake.click({ user: users[who], messageId: card.ref, customId: control });
			const modal = await fake.waitFor(() => opened.modal, "the answer form");
			if (text !== undefined)
				fake.submitModal({ user: users[who], opened, values: { [control.replace("lh:open:", "lh:text:")]: text } });
			return modal.title;
		},
		posts: (sessionId) => fake.channelMessages(threadOf(sessionId)).map((m) => m.text),
		find: (pattern) => [...fake.messages.values()].filter((m) => pattern.test(m.text)).map(discordCard),
		notices: (who) => fake.ephemeralsFor(users[who]).map((m) => m.text),
		waitFor: (check, what, timeoutMs = 15_000) => fake.waitFor(() => check() ?? undefined, what, timeoutMs),
		sendReminders: () => live().adapter.sendReminders(),
		async flush() {
			await live().adapter.flush(10_000);
		},
		problems: () => [
			...fake.problems(),
			...fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`),
		],
		calls: (method) =>
			fake.calls
				.filter((c) => `${c.method} ${c.path}`.includes(method))
				.map((c) => (c.body ?? {}) as Record<string, unknown>),
		async restart(between) {
			await shut();
			await between?.();
			await open();
		},
		async close() {
			await shut();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

async function onSlack(options: ChatOptions, clock: TestClock, budgets: BudgetRouter | undefined): Promise<Chat> {
	const dir = mkdtempSync(join(tmpdir(), "lh-contract-slack-"));
	const ids: Record<PersonKey, Person> = {
		learner: { id: "U1", name: "ada" },
		other: { id: "U2", name: "cy" },
		admin: { id: "UADMIN", name: "root" },
		dan: { id: "U4", name: "dan" },
	};
	const slackLocale = (l: string | undefined) => (l ? ({ de: "de-DE", es: "es-ES", ja: "ja-JP" }[l] ?? l) : "en-US");
	const fake: FakeSlack = await startFakeSlack({
		users: (Object.keys(ids) as PersonKey[]).map((k) => ({
			...ids[k],
			locale: slackLocale(options.locales?.[k]),
			...(k === "admin" ? { is_admin: true } : {}),
		})),
	});
	const logger = recordingLogger();
	const events: TutorEvent[] = [];
	let parts: { backend: LearnerBackend; state: StateStore; running: Running } | undefined;
	const open = async () => {
		const backend = await openLearnerBackend(dir, options.model, clock, budgets?.budget, options);
		backend.tutor.subscribe((e) => void events.push(e));
		const state = openStateStore(`sqlite://${join(dir, "slack.sqlite")}`, "slack");
		const running = await startAdapter(fake, {
			tutor: backend.tutor,
			renderer: stubRenderer(options.png ?? PNG),
			logger,
			state,
			learning: { learning: backend.learning },
			...(budgets ? { budgets } : {}),
		});
		parts = { backend, state, running };
	};
	const shut = async () => {
		await parts?.running.adapter.stop();
		await parts?.backend.close();
		await parts?.state.close();
	};
	await open();
	const live = () => {
		if (!parts) throw new Error("not started");
		return parts;
	};
	const actor = (who: PersonKey, channel = "C1") => ({ user: ids[who].id, name: ids[who].name, channel });
	const parentOf = (sessionId: string) => sessionId.split(":")[3] ?? "";
	const cardOf = (m: { ts: string; channel: string; threadTs?: string; text?: string; blocks?: unknown[] }): Card => ({
		ref: m.ts,
		where: m.channel,
		thread: m.threadTs,
		text: slackText(m),
		controls: slackControls(m.blocks).map((e) => String(e.action_id)),
		labels: slackControls(m.blocks).map((e) => e.text?.text ?? ""),
		files: [],
	});
	const parents = () => [...fake.messages.values()].filter((m) => m.channel === "C1" && !m.threadTs);
	const reply = async (who: PersonKey, send: () => Promise<unknown>, what: string): Promise<Card> => {
		const before = fake.calls.length;
		const uploads = fake.uploads.length;
		await send();
		const got = await fake.waitFor(
			() =>
				fake.calls
					.slice(before)
					.find(
						(c) =>
							(c.method === "response_url" && !c.replaced) ||
							(c.method === "chat.postEphemeral" && c.params.user === ids[who].id),
					),
			what,
		);
		// A file goes to the person's DM: it arrives soon after the reply that announces it.
		return {
			ref: running().sender.nextTs(),
			where: "C1",
			text: String(got.params.text ?? ""),
			controls: slackControls(got.params.blocks).map((e) => String(e.action_id)),
			labels: slackControls(got.params.blocks).map((e) => e.text?.text ?? ""),
			privateTo:
				got.method === "chat.postEphemeral" || got.params.response_type === "ephemeral" ? ids[who].id : undefined,
			files: fake.uploads
				.slice(uploads)
				.filter((u) => u.channelId === `D${ids[who].id}`)
				.map((u) => ({ name: u.filename, bytes: u.bytes })),
		};
	};
	const running = () => live().running;
	return {
		name: "slack",
		community: fake.teamId,
		channel: "C1",
		people: ids,
		get backend() {
			return live().backend;
		},
		get state() {
			return live().state;
		},
		events,
		logger,
		dir,
		async start(who, topic, { group, language } = {}) {
			const before = parents().length;
			const words = [...(language ? [`language:${language}`] : []), ...(group ? ["--group"] : []), topic];
			const said = await reply(
				who,
				() => running().sender.command("/lesson", `start ${words.join(" ")}`, actor(who)),
				"the start reply",
			);
			const parent = await fake.waitFor(() => parents()[before], `the parent of ${topic}`);
			return { sessionId: `slack:${fake.teamId}:C1:${parent.ts}`, reply: said };
		},
		command: (who, line) =>
			reply(who, () => running().sender.command("/lesson", line, actor(who)), `the reply to ${line}`),
		async say(who, sessionId, text) {
			await running().sender.event({
				type: "message",
				user: ids[who].id,
				text,
				ts: running().sender.nextTs(),
				channel: "C1",
				thread_ts: parentOf(sessionId),
			});
		},
		card: (sessionId, toolCallId, nth = 0) =>
			fake.waitFor(
				() =>
					[...fake.messages.values()]
						.filter((m) => m.threadTs === parentOf(sessionId))
						.map(cardOf)
						.filter((c) => c.controls.some((id) => id.split(":")[2] === toolCallId))[nth],
				`card ${nth} of ${toolCallId}`,
				20_000,
			),
		view: (card) => {
			const m = fake.messages.get(card.ref);
			return m ? cardOf(m) : card;
		},
		async click(who, card, control) {
			const action = control.startsWith("lh:select:")
				? { action_id: control, type: "static_select" as const, selected: "0" }
				: { action_id: control };
			await running().sender.action(actor(who, card.where), card.ref, action);
		},
		async form(who, card, control, text) {
			const opens = fake.callsTo("views.open").length;
			await running().sender.action(actor(who, card.where), card.ref, { action_id: control });
			const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "the answer form");
			const view = opened.params.view as Record<string, unknown> & { title?: { text?: string } };
			const input = control.replace("lh:open:", "lh:text:");
			if (text !== undefined)
				await running().sender.viewSubmission(actor(who, card.where), view, {
					[input]: { [input]: { type: "plain_text_input", value: text } },
				});
			return view.title?.text ?? "";
		},
		posts: (sessionId) =>
			[...fake.messages.values()].filter((m) => m.threadTs === parentOf(sessionId)).map((m) => slackText(m)),
		find: (pattern) => [...fake.messages.values()].map(cardOf).filter((c) => pattern.test(c.text)),
		notices: (who) =>
			fake
				.callsTo("chat.postEphemeral")
				.filter((c) => c.params.user === ids[who].id)
				.map((c) => String(c.params.text ?? "")),
		waitFor: (check, what, timeoutMs = 15_000) => fake.waitFor(check, what, timeoutMs),
		sendReminders: () => running().adapter.sendReminders(),
		async flush() {},
		calls: (method) => fake.calls.filter((c) => c.method.includes(method)).map((c) => c.params),
		problems: () => [
			...fake.limitProblems(),
			...fake.calls.filter((c) => c.ok === false).map((c) => `${c.method} ${c.error}`),
		],
		async restart(between) {
			await shut();
			await between?.();
			await open();
		},
		async close() {
			await shut();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** The chat platforms, for `describe.each`. */
export const CHATS = [["discord"], ["slack"]] as const;

/** Open `name` before a describe's tests and close it after; the handle is filled in by then. */
export function useChat(name: "discord" | "slack", options: ChatOptions): { chat: Chat } {
	const handle = {} as { chat: Chat };
	const budgets = options.budgets ? createBudgetRouter() : undefined;
	beforeAll(async () => {
		const open = name === "discord" ? onDiscord : onSlack;
		handle.chat = await open(options, options.clock ?? testClock(), budgets);
	}, 60_000);
	afterAll(async () => {
		await handle.chat?.close();
	});
	return handle;
}

/** Poll an async check (bounded by count) until it gives a value. */
export async function until<T>(check: () => Promise<T | undefined | false>, what: string): Promise<T> {
	for (let i = 0; i < 400; i++) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		await new Promise((done) => setTimeout(done, 25));
	}
	throw new Error(`never happened: ${what}`);
}

/** The answer a tool call got, from the events. */
export const answered = (events: TutorEvent[], toolCallId: string) =>
	events.find(
		(e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === toolCallId,
	)?.result;

/** A model whose script a test replaces between lessons; `use` returns the script's own model (its calls). */
export function switchable(first: ScriptedReply[] = []) {
	let script = scriptedModel(first);
	return {
		model: new MockLanguageModelV3({ doStream: (options) => script.doStream(options) }),
		use(replies: ScriptedReply[]) {
			script = scriptedModel(replies);
			return script;
		},
	};
}

/** The learning service's key of a person (profiles, review items). */
export const learnerKey = (chat: Chat, who: PersonKey) =>
	chat.name === "discord" ? `discord:${chat.people[who].id}` : `slack:${chat.community}:${chat.people[who].id}`;

/** Click `control` and wait for the private notice to `who` it brings (matching `pattern`); its text. */
export async function noticeOf(chat: Chat, who: PersonKey, card: Card, control: string, pattern: RegExp) {
	const before = chat.notices(who).length;
	await chat.click(who, card, control);
	return chat.waitFor(
		() =>
			chat
				.notices(who)
				.slice(before)
				.find((n) => pattern.test(n)),
		`${pattern} to ${who}`,
	);
}
