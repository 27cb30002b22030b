/**
 * A German lesson on every platform shows no English: the same German-speaking learner takes
 * the same lesson (a German scripted model: probe, map, a missed check with a hint and a
 * second try, Not sure, a question typed in the thread, the shaky node checked again, the
 * recall, the recap) on the Discord fake, the Slack fake and the terminal, with learner
 * profiles on (the closing message with its review plan and Remind me), then asks for help,
 * status and progress. Everything the learner could see (every message, edit, button, menu,
 * modal, private reply, file's alt text; the terminal's whole screen) is searched for the
 * English catalogue's phrases (test/fixtures/english-phrases.ts); each one found fails.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../src/adapters/discord/index.ts";
import { createLineSource } from "../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../src/adapters/terminal/playground.ts";
import { runTerminalForget, runTerminalProgress } from "../../src/adapters/terminal/profile-commands.ts";
import { createLearning, createSessionStore, createTutor, openStateStore } from "../../src/agent/index.ts";
import { HINT_REQUEST_MARKER } from "../../src/core/contracts/side-calls.ts";
import { t } from "../../src/i18n/index.ts";
import type { PlanRenderer } from "../../src/render/index.ts";
import { startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { replyStream, type ScriptedReply } from "../../testkit/model-stream.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { englishIn, englishPhrases } from "../fixtures/english-phrases.ts";
import { customIds, recordingLogger } from "./discord/helpers.ts";
import { startAdapter } from "./slack/harness.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const TOPIC = "Brüche addieren";
const HINT = "Denk an das kleinste gemeinsame Vielfache der Nenner.";
const MISSED = "Gemeinsamer Nenner von 1/2 und 1/5?";
const THANKS = "Hast du dazu eine Frage?";

/** The German lesson's model replies, in request order. */
function germanLesson(): ScriptedReply[] {
	const tagged = (id: string, type: "predict" | "check", nodeId: string, question: string, options: string[]) => ({
		name: "quiz",
		id,
		input: { type, nodeId, question, options, correctAnswer: options[1] },
	});
	return [
		{
			text: "Hallo! Zuerst ein paar kurze Fragen.",
			calls: [
				{
					name: "quiz",
					id: "p1",
					input: { question: "Was ist 1/2 + 1/4?", options: ["2/6", "3/4", "1/6"], correctAnswer: "3/4" },
				},
			],
		},
		{ calls: [{ name: "ask", id: "a1", input: { question: "Was weißt du schon über Brüche?" } }] },
		{
			text: "Danke, das genügt mir.",
			calls: [
				{
					name: "probe_done",
					id: "pd",
					input: {
						assessment: {
							strands: [
								{
									strand: "Brüche addieren",
									assessment: "Addiert gleichnamige Brüche; unsicher bei ungleichen Nennern.",
								},
							],
							summary: "Einstieg bei ungleichen Nennern.",
						},
					},
				},
			],
		},
		{
			calls: [
				{
					name: "plan_init",
					id: "plan",
					input: {
						mermaid: 'graph TD\n  gemeinsam["Gemeinsamer Nenner"] --> ungleich["Ungleiche Nenner"]',
					},
				},
			],
		},
		{
			text: "Zuerst eine Vermutung.",
			calls: [tagged("t1", "predict", "gemeinsam", "Welchen Nenner haben 1/3 und 1/6 gemeinsam?", ["3", "6", "9"])],
		},
		{
			calls: [
				{
					name: "explain",
					id: "e1",
					input: {
						title: "Gemeinsame Nenner",
						body: "3 und 6 teilen beide die 6.",
						role: "concept",
						nodeId: "gemeinsam",
					},
				},
				tagged("t2", "check", "gemeinsam", MISSED, ["7", "10", "5"]),
			],
		},
		{ calls: [tagged("t3", "predict", "ungleich", "1/2 + 1/3 = ?", ["2/5", "5/6"])] },
		{ text: THANKS },
		{
			text: "Gute Frage: 3 ist kein Vielfaches von 6. Noch einmal zum gemeinsamen Nenner.",
			calls: [tagged("t4", "check", "gemeinsam", "Gemeinsamer Nenner von 1/4 und 1/6?", ["24", "12", "10"])],
		},
		{
			calls: [
				{ name: "ask", id: "recall", input: { question: "Was hast du heute gelernt, in deinen eigenen Worten?" } },
			],
		},
		{
			calls: [
				{
					name: "explain",
					id: "r",
					input: { title: "Zusammenfassung", body: "Du findest gemeinsame Nenner.", role: "recap" },
				},
			],
		},
		{ text: "Gut gemacht!" },
	];
}

/** The German model: the lesson's replies in order; a hint request gets a German hint. */
function germanModel(): MockLanguageModelV3 {
	const script = germanLesson();
	const isHint = (o: LanguageModelV3CallOptions) =>
		o.prompt.some((m) => m.role === "system" && m.content.startsWith(HINT_REQUEST_MARKER));
	return new MockLanguageModelV3({
		doStream: async (options) => {
			if (isHint(options)) return { stream: replyStream({ text: HINT }) };
			const reply = script.shift();
			if (!reply) throw new Error("the German lesson has no reply left");
			return { stream: replyStream(reply) };
		},
	});
}

type Act = { pick: number } | { help: "hint" | "again" | "not-sure" } | { form: string } | { say: string };
const HELP_KIND = { hint: 0, again: 1, "not-sure": 4 } as const;

/** What the learner does, on every platform: the question (a piece of it) and the act. */
const LEARNER: Array<{ q: string; act: Act }> = [
	{ q: "Was ist 1/2 + 1/4?", act: { pick: 1 } },
	{ q: "Was weißt du schon über Brüche?", act: { form: "Gleiche Nenner kann ich addieren." } },
	{ q: "Welchen Nenner haben 1/3 und 1/6", act: { pick: 1 } },
	{ q: MISSED, act: { pick: 0 } }, // wrong: Not quite
	{ q: MISSED, act: { help: "hint" } },
	{ q: MISSED, act: { help: "again" } },
	{ q: MISSED, act: { pick: 1 } }, // right on the second try: the node is shaky
	{ q: "1/2 + 1/3 = ?", act: { help: "not-sure" } },
	{ q: THANKS, act: { say: "Warum 6 und nicht 3?" } },
	{ q: "Gemeinsamer Nenner von 1/4 und 1/6?", act: { pick: 1 } }, // the shaky node, checked again
	{ q: "Was hast du heute gelernt", act: { form: "Ich finde den gemeinsamen Nenner." } },
];

/** Keys whose strings a person sees (message text, labels, titles, alt texts, statuses). */
const VISIBLE = new Set([
	"text",
	// Streamed explanations (chat.startStream / appendStream / stopStream) and the thread status's words.
	"markdown_text",
	"status",
	"loading_messages",
	"content",
	"label",
	"placeholder",
	"description",
	"title",
	"alt_text",
	"alt_txt",
	"initial_comment",
	"status",
	"loading_messages",
]);

/** Every visible string in a payload (nested blocks and components included). */
function visibleStrings(value: unknown, key = "", out: string[] = []): string[] {
	if (typeof value === "string") {
		if (VISIBLE.has(key)) out.push(value);
	} else if (Array.isArray(value)) for (const v of value) visibleStrings(v, key, out);
	else if (typeof value === "object" && value !== null)
		for (const [k, v] of Object.entries(value)) visibleStrings(v, k === "elements" || k === "options" ? key : k, out);
	return out;
}

/** The stub renderer, recording the language each plan picture was asked in (its legend's words). */
function localeRecorder() {
	const stub = stubRenderer(PNG);
	const locales: Array<string | undefined> = [];
	const renderer: PlanRenderer = {
		...stub,
		renderPlan: (tree, statuses, mastery, locale) => {
			locales.push(locale);
			return stub.renderPlan(tree, statuses, mastery, locale);
		},
	};
	return { renderer, locales };
}

/** The pictures were drawn, all in German. */
function drawnInGerman(locales: ReadonlyArray<string | undefined>): void {
	expect(locales.length).toBeGreaterThan(0);
	expect(locales.filter((l) => l !== "de")).toEqual([]);
}

const dir = mkdtempSync(join(tmpdir(), "lh-german-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function onDiscord(): Promise<string> {
	const fake = await startFakeDiscord();
	const storeUrl = `sqlite://${join(dir, "discord.sqlite")}`;
	const sessions = await createSessionStore(storeUrl);
	const profiles = openStateStore(storeUrl, "learnharness:profiles");
	const learning = createLearning({ state: profiles, sessions });
	const tutor = createTutor({ model: germanModel(), store: sessions, maxRetries: 0 });
	const state = openStateStore(storeUrl, "discord");
	const { renderer, locales } = localeRecorder();
	const adapter = createDiscordAdapter({
		tutor,
		renderer,
		logger: recordingLogger(),
		state,
		learning: { learning },
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	await adapter.start();
	try {
		const learner = { ...fake.users.learner, locale: "de" };
		fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: TOPIC } });
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const settle = async () => {
			await tutor.idle(sessionId);
			await adapter.flush(10_000);
		};
		for (const { q, act } of LEARNER) {
			if ("say" in act) {
				await fake.waitFor(() => fake.channelMessages(thread.id).find((m) => m.text.includes(q)), q, 15_000);
				fake.say({ user: learner, channelId: thread.id, content: act.say });
				await fake.waitFor(() => fake.channelMessages(thread.id).length > 0 || undefined, "the message");
				await settle();
				continue;
			}
			const card = await fake.waitFor(
				() => fake.channelMessages(thread.id).find((m) => m.text.includes(q) && customIds(m).length > 0),
				`the card of "${q}"`,
				15_000,
			);
			const ids = customIds(card);
			const find = (re: RegExp) => {
				const id = ids.find((c) => re.test(c));
				if (!id) throw new Error(`no control ${re} on "${q}": ${ids.join(", ")}`);
				return id;
			};
			const edited = card.editedAt;
			const before = fake.channelMessages(thread.id).length;
			if ("pick" in act)
				fake.click({ user: learner, messageId: card.id, customId: find(new RegExp(`^lh:pick:.*:${act.pick}$`)) });
			else if ("help" in act)
				fake.click({
					user: learner,
					messageId: card.id,
					customId: find(new RegExp(`^lh:help:.*:${HELP_KIND[act.help]}$`)),
				});
			else {
				const open = find(/^lh:open:/);
				const opened = fake.click({ user: learner, messageId: card.id, customId: open });
				await fake.waitFor(() => opened.modal, "the answer modal");
				fake.submitModal({ user: learner, opened, values: { [open.replace("lh:open:", "lh:text:")]: act.form } });
			}
			await fake.waitFor(
				() => fake.messages.get(card.id)?.editedAt !== edited || fake.channelMessages(thread.id).length > before,
				`the answer to "${q}"`,
				15_000,
			);
			await settle();
		}
		// The closing message, its Remind me, then help, status and progress.
		const closing = await fake.waitFor(
			() => fake.channelMessages(thread.id).find((m) => customIds(m).some((id) => id.includes("lh-remind-me"))),
			"the closing message",
			15_000,
		);
		expect(closing.text).toContain(t("de", "closing.reviewHeading"));
		const notices = fake.ephemeralsFor(learner).length;
		fake.click({ user: learner, messageId: closing.id, customId: customIds(closing)[0] ?? "" });
		await fake.waitFor(() => fake.ephemeralsFor(learner).length > notices || undefined, "the reminder notice");
		for (const subcommand of ["help", "status", "progress"]) {
			const asked = fake.slash({ user: learner, channelId: thread.id, subcommand });
			await fake.waitFor(() => {
				const m = asked.originalMessageId ? fake.messages.get(asked.originalMessageId) : undefined;
				return m && (m.text !== "" || m.attachments.length > 0) ? m : undefined;
			}, `the reply to ${subcommand}`);
		}
		await settle();
		expect(fake.problems()).toEqual([]);
		drawnInGerman(locales);
		// What the learner could see: every message body the bot sent (posts, edits, replies, modals).
		return fake.calls
			.filter((c) => /\/(channels|interactions|webhooks)\//.test(c.path) && c.method !== "GET")
			.flatMap((c) => visibleStrings(c.body))
			.join("\n");
	} finally {
		await adapter.stop();
		await tutor.close();
		await state.close();
		await profiles.close();
		await fake.close();
	}
}

async function onSlack(): Promise<string> {
	const fake = await startFakeSlack({ users: [{ id: "U1", name: "bob", locale: "de-DE" }] });
	const who = { user: "U1", name: "bob", channel: "C1" };
	const storeUrl = `sqlite://${join(dir, "slack.sqlite")}`;
	const sessions = await createSessionStore(storeUrl);
	const profiles = openStateStore(storeUrl, "learnharness:profiles");
	const learning = createLearning({ state: profiles, sessions });
	const tutor = createTutor({ model: germanModel(), store: sessions, maxRetries: 0 });
	const state = openStateStore(storeUrl, "slack");
	const { renderer, locales } = localeRecorder();
	const running = await startAdapter(fake, { tutor, renderer, state, learning: { learning } });
	try {
		await running.sender.command("/lesson", `start ${TOPIC}`, who);
		const parent = await fake.waitFor(() => [...fake.messages.values()].find((m) => !m.threadTs), "the parent");
		const sessionId = `slack:${fake.teamId}:C1:${parent.ts}`;
		const inThread = () => [...fake.messages.values()].filter((m) => m.threadTs === parent.ts);
		const latest = (ts: string) => {
			const updates = fake.calls.filter(
				(c) => (c.method === "chat.update" && c.params.ts === ts) || c.replaced?.ts === ts,
			);
			const m = fake.messages.get(ts);
			return JSON.stringify(updates.length > 0 ? updates.at(-1)?.params : m ? { text: m.text, blocks: m.blocks } : {});
		};
		const idsOf = (ts: string) => [...latest(ts).matchAll(/"action_id":"(lh:[^"]+)"/g)].map((m) => m[1] ?? "");
		for (const { q, act } of LEARNER) {
			if ("say" in act) {
				await fake.waitFor(() => inThread().find((m) => latest(m.ts).includes(q)), q, 15_000);
				await running.sender.event({
					type: "message",
					user: "U1",
					text: act.say,
					ts: running.sender.nextTs(),
					channel: "C1",
					thread_ts: parent.ts,
				});
				await fake.waitFor(() => inThread().find((m) => latest(m.ts).includes("Noch einmal")), "the reply", 15_000);
				await tutor.idle(sessionId);
				continue;
			}
			const card = await fake.waitFor(
				() => inThread().find((m) => latest(m.ts).includes(q) && idsOf(m.ts).length > 0),
				`the card of "${q}"`,
				15_000,
			);
			const ids = idsOf(card.ts);
			const find = (re: RegExp) => {
				const id = ids.find((c) => re.test(c));
				if (!id) throw new Error(`no control ${re} on "${q}": ${ids.join(", ")}`);
				return id;
			};
			const cardUpdates = () => fake.calls.filter((c) => c.method === "chat.update" || c.replaced).length;
			const updates = cardUpdates();
			const posts = fake.callsTo("chat.postMessage").length;
			if ("pick" in act)
				await running.sender.action(who, card.ts, { action_id: find(new RegExp(`^lh:pick:.*:${act.pick}$`)) });
			else if ("help" in act)
				await running.sender.action(who, card.ts, {
					action_id: find(new RegExp(`^lh:help:.*:${HELP_KIND[act.help]}$`)),
				});
			else {
				const open = find(/^lh:open:/);
				const opens = fake.callsTo("views.open").length;
				await running.sender.action(who, card.ts, { action_id: open });
				const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "the answer modal");
				const text = open.replace("lh:open:", "lh:text:");
				await running.sender.viewSubmission(who, opened.params.view as Record<string, unknown>, {
					[text]: { [text]: { type: "plain_text_input", value: act.form } },
				});
			}
			await fake.waitFor(
				() => cardUpdates() > updates || fake.callsTo("chat.postMessage").length > posts,
				`the answer to "${q}"`,
				15_000,
			);
			await tutor.idle(sessionId);
		}
		const closing = await fake.waitFor(
			() => inThread().find((m) => idsOf(m.ts).some((id) => id.includes("lh-remind-me"))),
			"the closing message",
			15_000,
		);
		const notices = fake.callsTo("chat.postEphemeral").length;
		await running.sender.action(who, closing.ts, { action_id: idsOf(closing.ts)[0] ?? "" });
		await fake.waitFor(() => fake.callsTo("chat.postEphemeral").length > notices || undefined, "the reminder notice");
		for (const command of ["help", "status", "progress"]) {
			const replies = fake.callsTo("response_url").length;
			await running.sender.command("/lesson", command, who);
			await fake.waitFor(() => fake.callsTo("response_url").length > replies || undefined, `the reply to ${command}`);
		}
		await tutor.idle(sessionId);
		expect(fake.limitProblems()).toEqual([]);
		drawnInGerman(locales);
		const methods =
			/^(chat\.(postMessage|update|postEphemeral|startStream|appendStream|stopStream)|views\.(open|update|publish)|files\.|response_url|assistant\.)/;
		return (
			fake.calls
				.filter((c) => methods.test(c.method))
				.flatMap((c) => visibleStrings(c.params))
				.join("\n")
				// Emoji shortcodes (:white_check_mark:) show as pictures, not words.
				.replace(/:[a-z0-9_+-]+:/g, " ")
		);
	} finally {
		await running.adapter.stop();
		await tutor.close();
		await state.close();
		await profiles.close();
		await fake.close();
	}
}

async function onTerminal(): Promise<string> {
	const storeUrl = `sqlite://${join(dir, "terminal.sqlite")}`;
	const sessions = await createSessionStore(storeUrl);
	const profiles = openStateStore(storeUrl, "learnharness:profiles");
	const learning = createLearning({ state: profiles, sessions });
	const tutor = createTutor({ model: germanModel(), store: sessions, maxRetries: 0 });
	// A terminal (TTY): the "thinking" status line shows too.
	const out = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
	let screen = "";
	out.on("data", (c: Buffer) => {
		screen += c.toString();
	});
	const WORDS = { hint: "hint", again: "again", "not-sure": "not sure" } as const;
	const lines = LEARNER.map(({ act }) =>
		"pick" in act ? ("ABC"[act.pick] ?? "A") : "help" in act ? WORDS[act.help] : "form" in act ? act.form : act.say,
	);
	const { renderer, locales } = localeRecorder();
	try {
		const result = await runPlayground({
			tutor,
			renderer,
			source: createLineSource(Readable.from(lines.map((l) => `${l}\n`)), out),
			output: out,
			interactive: true,
			topic: TOPIC,
			language: "de",
			learner: { id: "terminal-learner", name: "bob" },
			plansDir: join(dir, "plans"),
			learning: { learning },
		});
		expect(result.outcome).toBe("ended");
		drawnInGerman(locales);
		const options = { tutor, learning: { learning }, output: out, locale: "de" as const, dataDir: dir };
		await runTerminalProgress(options);
		await runTerminalForget({ ...options, yes: false });
		expect(screen).toContain(t("de", "closing.reviewHeading"));
		// The status line's control sequences are not words.
		// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes, by design
		return screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
	} finally {
		await tutor.close();
		await profiles.close();
	}
}

describe("a German lesson shows no English, on every platform", { timeout: 120_000 }, () => {
	const phrases = englishPhrases();

	it("builds its list from the English catalogue, and the list finds English", () => {
		expect(phrases.length).toBeGreaterThan(300);
		// What an English lesson shows is found; the German catalogue's words are not on the list.
		expect(englishIn(t("en", "card.missed", { answer: "7" }), phrases)).not.toEqual([]);
		expect(englishIn(t("en", "tutor.complete"), phrases)).not.toEqual([]);
		expect(englishIn(t("de", "card.missed", { answer: "7" }), phrases)).toEqual([]);
		expect(englishIn("Legende: aktuell", phrases)).toEqual([]);
	});

	it.each([
		["discord", onDiscord],
		["slack", onSlack],
		["terminal", onTerminal],
	] as const)("%s", async (_, run) => {
		const seen = await run();
		expect(seen).toContain(HINT); // the lesson really ran: the hint, the recap, the closing message
		expect(seen).toContain("Du findest gemeinsame Nenner.");
		expect(englishIn(seen, phrases)).toEqual([]);
	});
});
