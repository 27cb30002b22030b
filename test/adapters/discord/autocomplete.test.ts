/**
 * `/lesson start topic:` autocomplete through the real discord.js client against the fake Discord, which
 * checks the answer as Discord does (type 8, at most 25 choices, names 1..100 and string values up to 100
 * characters). A learner with a finished lesson whose review is due and an unfinished lesson, on a server
 * whose admin curated topics, is offered them in that order (the review, the unfinished lesson, the curated
 * topics), each topic once, filtered by what they typed; odd input gets an empty list, never an error.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { createLibraryStore, type LibraryStore, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { buildIndex, extractText } from "../../../src/material/index.ts";
import { type FakeDiscord, type FakeInteraction, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import {
	answerFractionsLesson,
	type LearnerBackend,
	openLearnerBackend,
	type TestClock,
	testClock,
} from "../../fixtures/profile-stack.ts";
import { recordingLogger, scriptedModel } from "./helpers.ts";

/** 22 filler topics: with the three named ones, 25 curated topics (the most a server keeps). */
const FILLER = Array.from({ length: 22 }, (_, i) => `Topic ${String(i + 1).padStart(2, "0")}`);
const CURATED = ["Fractions", "French verbs", "DERIVATIVES of polynomials", ...FILLER];

describe("/lesson start topic: autocomplete on Discord", { timeout: 90_000 }, () => {
	let fake: FakeDiscord;
	let dir: string;
	let clock: TestClock;
	let backend: LearnerBackend;
	let state: StateStore;
	let library: LibraryStore;
	let adapter: DiscordAdapter;
	const logger = recordingLogger();

	beforeAll(async () => {
		fake = await startFakeDiscord();
		dir = mkdtempSync(join(tmpdir(), "lh-autocomplete-"));
		clock = testClock();
		const model = scriptedModel([
			...fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Well done!" }),
			{ text: "What do you already know about derivatives?" },
		]);
		backend = await openLearnerBackend(dir, model, clock);
		state = openStateStore(`sqlite://${join(dir, "discord.sqlite")}`, "discord");
		library = createLibraryStore(state);
		adapter = createDiscordAdapter({
			tutor: backend.tutor,
			renderer: stubRenderer(Buffer.from("png")),
			logger,
			state,
			learning: { learning: backend.learning, library },
			config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
		});
		await adapter.start();
	});

	afterAll(async () => {
		await adapter?.stop();
		await backend?.close();
		await state?.close();
		await fake?.close();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	/** The reply a command's deferred answer was edited into. */
	const replyOf = (it: FakeInteraction, what: string) =>
		fake.waitFor(() => {
			const m = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
			return m?.editedAt ? m : undefined;
		}, what);

	/** The choices the bot answered an autocomplete with, once it answered. */
	const choicesFor = async (options: Omit<Parameters<FakeDiscord["autocomplete"]>[0], "user" | "channelId">) => {
		const it = fake.autocomplete({ user: fake.users.learner, channelId: fake.ids.general, ...options });
		await fake.waitFor(() => it.responseType, "the autocomplete's answer", 15_000);
		expect(it.responseType).toBe(8);
		expect(it.rejectedCallbacks).toBe(0);
		return it.choices ?? [];
	};

	it("offers the library's names for start library:, those starting with what was typed first", async () => {
		for (const name of ["Chapter 8", "Biology notes", "chapter 9"]) {
			const doc = extractText(new TextEncoder().encode(`# ${name}\n\nThe words of ${name}.`), { name: `${name}.md` });
			if (!doc.ok) throw new Error(doc.message);
			const item = {
				name,
				pages: 1,
				unit: "part" as const,
				addedBy: { id: "u-admin", name: "admin" },
				addedAt: "2026-12-01T00:00:00.000Z",
			};
			expect(await library.add(fake.guild.id, item, { ...buildIndex(doc), name })).toEqual({ ok: true });
		}
		const lesson = fake.commands.guild.get(fake.guild.id)?.find((c) => c.name === "lesson");
		const start = ((lesson?.options ?? []) as Array<Record<string, unknown>>).find((o) => o.name === "start");
		const option = ((start?.options ?? []) as Array<Record<string, unknown>>).find((o) => o.name === "library");
		expect(option).toMatchObject({ type: 3, autocomplete: true });
		const chapter = await choicesFor({
			subcommand: "start",
			focused: "library",
			typed: "chap",
			options: { topic: "x" },
		});
		expect(chapter.map((c) => c.value).sort()).toEqual(["Chapter 8", "chapter 9"]);
		const notes = await choicesFor({ subcommand: "start", focused: "library", typed: "NOTES" });
		expect(notes).toEqual([{ name: "Biology notes", value: "Biology notes" }]);
		expect(await choicesFor({ subcommand: "start", focused: "library", typed: "zzz" })).toEqual([]);
		// An admin removing one: the same names.
		const removing = await choicesFor({ group: "material", subcommand: "remove", focused: "name", typed: "bio" });
		expect(removing).toEqual([{ name: "Biology notes", value: "Biology notes" }]);
		for (const name of ["Chapter 8", "Biology notes", "chapter 9"]) await library.remove(fake.guild.id, name);
	});

	it("declares the topic option as autocompleting (and so without choices)", () => {
		const lesson = fake.commands.guild.get(fake.guild.id)?.find((c) => c.name === "lesson");
		const start = ((lesson?.options ?? []) as Array<Record<string, unknown>>).find((o) => o.name === "start");
		const topic = ((start?.options ?? []) as Array<Record<string, unknown>>).find((o) => o.name === "topic");
		expect(topic).toMatchObject({ type: 3, autocomplete: true, required: true });
		expect(topic?.choices).toBeUndefined();
		expect(fake.problems()).toEqual([]);
	});

	it("offers due reviews, then unfinished lessons, then curated topics, filtered by what was typed", async () => {
		// An admin curates topics (one of them the learner's unfinished lesson, spelled otherwise).
		const config = fake.slash({
			user: fake.users.admin,
			channelId: fake.ids.general,
			subcommand: "config",
			options: { topics: CURATED.join(", ") },
		});
		expect((await replyOf(config, "the config reply")).text).toContain("Suggested topics: Fractions, French verbs");

		// A finished lesson with a checked idea (reviewed later), and an unfinished one.
		const first = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "adding fractions" },
		});
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the first lesson's thread");
		await replyOf(first, "the first start reply");
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const learner = { id: fake.users.learner.id, name: fake.users.learner.username };
		await answerFractionsLesson(backend.tutor, sessionId, learner);
		fake.slash({ user: fake.users.learner, channelId: thread.id, subcommand: "end" });
		const key = `discord:${fake.users.learner.id}`;
		// The profile entry is recorded once the lesson's end is (the learning service observes the tutor).
		for (let i = 0; i < 400 && !(await backend.learning.profile(key))?.lessons.length; i++)
			await new Promise((done) => setTimeout(done, 25));
		expect((await backend.learning.profile(key))?.lessons.map((l) => l.topic)).toEqual(["adding fractions"]);
		const second = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "derivatives of polynomials" },
		});
		await fake.waitFor(() => fake.createdThreads()[1], "the second lesson's thread");
		await replyOf(second, "the second start reply");
		clock.advanceDays(30); // the first lesson's review item is due now

		// Nothing typed: everything, in order, each topic once, at most 25.
		const all = await choicesFor({ subcommand: "start", focused: "topic", typed: "" });
		expect(all).toHaveLength(25);
		expect(all.slice(0, 4)).toEqual([
			{ name: "adding fractions · review due", value: "adding fractions" },
			{ name: "derivatives of polynomials · unfinished lesson", value: "derivatives of polynomials" },
			{ name: "Fractions", value: "Fractions" },
			{ name: "French verbs", value: "French verbs" },
		]);
		expect(all.map((c) => c.value)).not.toContain("DERIVATIVES of polynomials"); // already offered, unfinished
		expect(all.at(-1)?.value).toBe("Topic 21"); // 25 in all: the last curated one left out

		// Typed text filters, case-insensitively; within a group, what starts with it comes first.
		expect((await choicesFor({ subcommand: "start", focused: "topic", typed: "FR" })).map((c) => c.value)).toEqual([
			"adding fractions",
			"Fractions",
			"French verbs",
		]);
		expect((await choicesFor({ subcommand: "start", focused: "topic", typed: "deriv" })).map((c) => c.value)).toEqual([
			"derivatives of polynomials",
		]);
		expect(await choicesFor({ subcommand: "start", focused: "topic", typed: "quantum" })).toEqual([]);
		// Another member sees the server's topics, not the learner's reviews or lessons.
		const other = fake.autocomplete({
			user: fake.users.other,
			channelId: fake.ids.general,
			subcommand: "start",
			focused: "topic",
			typed: "fr",
		});
		await fake.waitFor(() => other.choices, "the other member's choices", 15_000);
		expect(other.choices?.map((c) => c.value)).toEqual(["Fractions", "French verbs"]);
		expect(fake.problems()).toEqual([]);
	});

	it("answers odd input with an empty list, never an error", async () => {
		expect(await choicesFor({ subcommand: "start", focused: "topic", typed: "fr".repeat(3000) })).toEqual([]);
		// Options Discord would not autocomplete, sent anyway.
		expect(await choicesFor({ subcommand: "start", focused: "mode", typed: "so", force: true })).toEqual([]);
		expect(await choicesFor({ subcommand: "start", focused: "nonsense", typed: "x", force: true })).toEqual([]);
		expect(await choicesFor({ subcommand: "config", focused: "price", typed: "gpt", force: true })).toEqual([]);
		expect(fake.problems()).toEqual([]);
		expect(logger.errors()).toEqual([]);
	});

	it("the fake refuses answers Discord refuses: over 25 choices, a name or value over 100, another type", async () => {
		await adapter.stop(); // nobody answers now but the test
		const send = async (it: FakeInteraction, body: unknown) => {
			const res = await fetch(`${fake.apiUrl}/v10/interactions/${it.id}/${it.token}/callback`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify(body),
			});
			return res.status;
		};
		const typing = () =>
			fake.autocomplete({
				user: fake.users.learner,
				channelId: fake.ids.general,
				subcommand: "start",
				focused: "topic",
				typed: "",
			});
		const choice = (name: string, value: unknown = "v") => ({ name, value });
		const it = typing();
		expect(await send(it, { type: 8, data: { choices: Array.from({ length: 26 }, (_, i) => choice(`c${i}`)) } })).toBe(
			400,
		);
		expect(await send(it, { type: 8, data: { choices: [choice("x".repeat(101))] } })).toBe(400);
		expect(await send(it, { type: 8, data: { choices: [choice("")] } })).toBe(400);
		expect(await send(it, { type: 8, data: { choices: [choice("ok", "v".repeat(101))] } })).toBe(400);
		expect(await send(it, { type: 8, data: { choices: [choice("ok", 3)] } })).toBe(400);
		expect(await send(it, { type: 5, data: {} })).toBe(400); // an autocomplete cannot be deferred
		expect(it.responseType).toBeUndefined();
		expect(await send(it, { type: 8, data: { choices: [choice("x".repeat(100), "v".repeat(100))] } })).toBe(204);
		expect(it.choices).toHaveLength(1);
		// And a command cannot be answered with choices.
		const command = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "help" });
		expect(await send(command, { type: 8, data: { choices: [] } })).toBe(400);
		expect(fake.problems().length).toBeGreaterThan(0); // the shapes refused were recorded as problems
	});
});
