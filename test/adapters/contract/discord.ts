/**
 * Discord under the contract suite: the real discord.js client against the fake Discord, with the real tutor (or
 * the test's stand-in), the learning service and SQLite files. Lines come Slack-spelled and become slash options here.
 */

import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import type { BudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import {
	type FakeDiscord,
	type FakeInteraction,
	type FakeMessage,
	type FakeUser,
	messageControls,
	startFakeDiscord,
} from "../../../testkit/fakes/discord.ts";
import { snowflake } from "../../../testkit/fixtures/discord/payloads.ts";
import type { TestClock } from "../../fixtures/profile-stack.ts";
import { openSide, type PlatformChat } from "./engine-side.ts";
import type { Card, Chat, ChatOptions, Delivery, Material, Person, PersonKey } from "./types.ts";

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
		pictures: m.attachments.map((a) => ({ alt: a.description ?? "", bytes: a.data })),
	};
};

/** Slack's config words that Discord names otherwise. */
const DISCORD_NAMES: Record<string, string> = { limit: "lessons-per-day", mode: "default-mode" };

/** Discord options from a Slack-style line: "start --group language:es topic", "config k v k v", "remind on". */
function discordOptions(sub: string, words: string[]): Record<string, string | number | boolean> {
	// A count is a number; a snowflake (17 digits and more) stays the string it is.
	const value = (v: string) => (/^\d{1,15}$/.test(v) ? Number(v) : v === "on" ? true : v === "off" ? false : v);
	if (sub === "start") {
		const options: Record<string, string> = {};
		const topic = words.filter((w) => {
			if (w === "--group") options.mode = "group";
			else if (w.startsWith("language:")) options.language = w.slice(9);
			else if (w.startsWith("library:")) options.library = w.slice(8);
			else if (w.startsWith("<@")) options.for = w.slice(2, -1).split("|")[0] ?? "";
			else return true;
			return false;
		});
		return { ...options, topic: topic.join(" ") };
	}
	if (sub === "remind") return { on: words[0] === "on" };
	const options: Record<string, string | number | boolean> = {};
	for (let i = 0; i + 1 < words.length; i += 2)
		options[DISCORD_NAMES[words[i] ?? ""] ?? words[i] ?? ""] = value(words[i + 1] ?? "");
	return options;
}

/** Open Discord for a contract (see chat.ts). */
export async function onDiscord(
	options: ChatOptions,
	clock: TestClock,
	budgets: BudgetRouter | undefined,
): Promise<Chat> {
	const fake: FakeDiscord = await startFakeDiscord();
	// Every dispatch, to replay one (a copy of a delivery).
	const dispatched: Array<[string, unknown]> = [];
	const dispatch = fake.dispatch.bind(fake);
	fake.dispatch = (t, d) => {
		dispatched.push([t, d]);
		dispatch(t, d);
	};
	const dan: FakeUser = { id: snowflake(), username: "dan" };
	fake.members.push({ user: dan, roles: [] });
	const users: Record<PersonKey, FakeUser> = { ...fake.users, dan };
	for (const [key, locale] of Object.entries(options.locales ?? {}))
		users[key as PersonKey] = { ...users[key as PersonKey], locale };
	const side = await openSide<DiscordAdapter>("discord", options, clock, budgets, {
		async start(deps, index) {
			const config = { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 };
			// One process registers the commands (as one deployment does).
			const adapter = createDiscordAdapter({ ...deps, config: { ...config, registerCommands: index === 0 } });
			await adapter.start();
			return adapter;
		},
		stop: (adapter) => adapter.stop(),
		closeFake: () => fake.close(),
	});
	const threadOf = (sessionId: string) => sessionId.split(":")[2] ?? "";
	const replyTo = async (it: FakeInteraction, what: string) =>
		discordCard(
			await fake.waitFor(() => {
				const m = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
				return m && (m.text !== "" || m.attachments.length > 0 || m.components.length > 0) ? m : undefined;
			}, what),
		);
	const slash = (who: PersonKey, line: string, sessionId?: string, material?: Material, library?: string) => {
		const [first = "", ...rest] = line.split(" ").filter(Boolean);
		// `material add|list|remove <name>`: the library's subcommand group, the rest of the line its name.
		const group = first === "material";
		const sub = group ? `material ${rest[0] ?? ""}` : first;
		const words = group ? rest.slice(1) : rest;
		const channelId = sessionId ? threadOf(sessionId) : fake.ids.general;
		const options: Record<string, string | number | boolean> = group
			? words.length > 0
				? { name: words.join(" ") }
				: {}
			: { ...discordOptions(sub, words), ...(library !== undefined ? { library } : {}) };
		const file = material && {
			filename: material.name,
			contentType: material.name.endsWith(".pdf") ? "application/pdf" : "text/plain",
			data: Buffer.from(material.data),
		};
		// No subcommand at all, as a client sends `/lesson` alone.
		return fake.slash({
			user: users[who],
			channelId,
			...(sub ? { subcommand: sub } : {}),
			...(Object.keys(options).length ? { options } : {}),
			...(file ? { files: { [group ? "file" : "material"]: file } } : {}),
		});
	};
	/** The answer forms opened, by control. */
	const forms = new Map<string, FakeInteraction>();
	const deliver = (who: PersonKey, d: Delivery): FakeInteraction | undefined => {
		const user = users[who];
		if ("command" in d) return slash(who, d.command, d.sessionId);
		if ("end" in d) return slash(who, "end", d.end);
		if ("say" in d) return void fake.say({ user, channelId: threadOf(d.sessionId), content: d.say });
		if ("mention" in d) throw new Error("Discord starts no lesson from a mention");
		if ("submit" in d) {
			const opened = forms.get(d.submit);
			if (!opened) throw new Error(`the form of ${d.submit} was never opened`);
			return fake.submitModal({ user, opened, values: { [d.submit.replace("lh:open:", "lh:text:")]: d.text } });
		}
		const { click: customId, card } = d;
		if (customId.startsWith("lh:select:")) return fake.select({ user, messageId: card.ref, customId, values: ["0"] });
		const it = fake.click({ user, messageId: card.ref, customId });
		if (customId.startsWith("lh:open:")) forms.set(customId, it);
		return it;
	};
	const person = (u: FakeUser): Person => ({ id: u.id, name: u.username });
	const chat: PlatformChat = {
		name: "discord",
		community: fake.guild.id,
		channel: fake.ids.general,
		elsewhere: fake.ids.other,
		people: {
			learner: person(users.learner),
			other: person(users.other),
			admin: person(users.admin),
			dan: person(dan),
		},
		async start(who, topic, { group, language, material, library } = {}) {
			const threads = fake.createdThreads().length;
			const words = [...(group ? ["--group"] : []), ...(language ? [`language:${language}`] : []), topic];
			const it = slash(who, `start ${words.join(" ")}`, undefined, material, library);
			const thread = await fake.waitFor(() => fake.createdThreads()[threads], `the thread of ${topic}`);
			return { sessionId: `discord:${fake.guild.id}:${thread.id}`, reply: await replyTo(it, "the start reply") };
		},
		command: (who, line, sessionId, file) => replyTo(slash(who, line, sessionId, file), `the reply to ${line}`),
		say: async (who, sessionId, say) => void (await chat.send(who, { say, sessionId })),
		async send(who, d, copies = 1) {
			const mark = dispatched.length;
			const it = deliver(who, d);
			for (const [t, payload] of dispatched.slice(mark).flatMap((x) => Array(copies - 1).fill(x))) dispatch(t, payload);
			if (!it) return [];
			return [await fake.waitFor(() => it.responseType, `the first response to ${JSON.stringify(Object.keys(d))}`)];
		},
		threads: () => fake.createdThreads().length,
		forms: () => [...fake.interactions.values()].filter((it) => it.modal).length,
		replies: () =>
			[...fake.interactions.values()].flatMap((it) => {
				const m = it.kind === "command" ? fake.messages.get(it.originalMessageId ?? "") : undefined;
				return m && (it.responseType === 4 || m.editedAt) ? [m.text] : [];
			}),
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
		click: async (who, card, click) => void (await chat.send(who, { click, card })),
		async form(who, card, control, text) {
			await chat.send(who, { click: control, card });
			const modal = await fake.waitFor(() => forms.get(control)?.modal, "the answer form");
			if (text !== undefined) deliver(who, { submit: control, card, text });
			// The question (a text display) and the field's label.
			const parts = modal.components as Array<{ content?: string; label?: string }>;
			return [modal.title, ...parts.flatMap((p) => [p.content ?? "", p.label ?? ""])].filter(Boolean).join("\n");
		},
		posts: (sessionId) => fake.channelMessages(threadOf(sessionId)).map((m) => m.text),
		find: (pattern) => [...fake.messages.values()].filter((m) => pattern.test(m.text)).map(discordCard),
		notices: (who) => fake.ephemeralsFor(users[who]).map((m) => m.text),
		waitFor: (check, what, timeoutMs = 15_000) => fake.waitFor(() => check() ?? undefined, what, timeoutMs),
		sendReminders: () => side.processes()[0]!.sendReminders(),
		async flush() {
			for (const adapter of side.processes()) await adapter.flush(10_000);
		},
		problems: () => [
			...fake.problems(),
			...fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`),
			...[...fake.interactions.values()]
				.filter((it) => it.rejectedCallbacks > 0)
				.map((it) => `${it.kind} ${it.id}: ${it.rejectedCallbacks} refused callbacks`),
		],
		calls: (method) =>
			fake.calls
				.filter((c) => `${c.method} ${c.path}`.includes(method))
				.map((c) => (c.body ?? {}) as Record<string, unknown>),
	};
	return side.chat(chat);
}
