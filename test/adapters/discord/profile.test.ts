/**
 * Lessons across lessons on the fake Discord: a lesson builds the learner's
 * profile; a second lesson's prober gets what is known; `/lesson review` days
 * later (an injected clock) asks the due item privately (ephemeral replies, no
 * thread), grades the answer typed in its form and reschedules it with FSRS
 * (longer after a success, shorter after a miss); a reminder fires once across
 * a restart and its "Review now" starts a private review; `/lesson progress` posts a PNG; `/lesson report` posts a CSV whose
 * figures equal the transcript's; forget-me leaves no key of the learner.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import KeyvSqlite from "@keyv/sqlite";
import { MockLanguageModelV3 } from "ai/test";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { ANONYMOUS_MEMBER, periodTokens, UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { assessmentInput, fractionsLesson, planMermaid } from "../../fixtures/lesson-script.ts";
import {
	answerFractionsLesson,
	type LearnerBackend,
	openLearnerBackend,
	testClock,
} from "../../fixtures/profile-stack.ts";
import { customIds, recordingLogger } from "./helpers.ts";

const png = PNG.sync.write(new PNG({ width: 1, height: 1 }));
// The lessons' script; the group lesson's own script replaces it (the first lesson ends before its script does).
let script = scriptedModel([
	...fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Well done!" }),
	{ text: "Welcome back!" },
]);
const model = new MockLanguageModelV3({ doStream: (options) => script.doStream(options) });
const groupScript = () =>
	scriptedModel([
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "gpd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "gplan" }] },
		{
			text: "Vote, everyone.",
			calls: [
				{
					name: "quiz",
					input: {
						type: "check",
						nodeId: "common-denominator",
						question: "Which fraction equals 2/4?",
						options: ["1/2", "2/8", "4/2"],
						correctAnswer: "1/2",
					},
					id: "g1",
				},
			],
		},
	]);
const clock = testClock();
const budgets = createBudgetRouter();
let fake: FakeDiscord;
let dir: string;
let backend: LearnerBackend;
let state: StateStore;
let adapter: DiscordAdapter;

async function open(): Promise<void> {
	backend = await openLearnerBackend(dir, model, clock, budgets.budget);
	state = openStateStore(`sqlite://${join(dir, "discord.sqlite")}`, "discord");
	adapter = createDiscordAdapter({
		tutor: backend.tutor,
		renderer: stubRenderer(png),
		logger: recordingLogger(),
		state,
		learning: { learning: backend.learning },
		budgets,
		config: {
			token: fake.token,
			apiUrl: fake.apiUrl,
			guildId: fake.guild.id,
			readyTimeoutMs: 10_000,
			// Token budgets on: every turn is charged to the learner in the usage ledger (forget-me must anonymise it).
			guildDefaults: { memberTokensPerDay: 1_000_000, serverTokensPerDay: 10_000_000 },
		},
	});
	await adapter.start();
}

async function shut(): Promise<void> {
	await adapter.stop();
	await backend.close();
	await state.close();
}

beforeAll(async () => {
	fake = await startFakeDiscord();
	dir = mkdtempSync(join(tmpdir(), "lh-profile-"));
	await open();
});
afterAll(async () => {
	await shut();
	await fake.close();
	rmSync(dir, { recursive: true, force: true });
});

/** The ephemeral reply of a slash command, once it says something. */
function replyOf(it: { originalMessageId?: string }, what: string) {
	return fake.waitFor(() => {
		const m = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
		return m && (m.content !== "" || m.attachments.length > 0 || m.components.length > 0) ? m : undefined;
	}, what);
}

/** Poll an async check until it gives a value (bounded). */
async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
	for (let i = 0; i < 400; i++) {
		const value = await check();
		if (value !== undefined) return value;
		await new Promise((done) => setTimeout(done, 25));
	}
	throw new Error(`timed out waiting for ${what}`);
}

const learnerKey = () => `discord:${fake.users.learner.id}`;

describe("learner profile, review, progress, report and forget-me on Discord", () => {
	let lessonId = "";

	it("records a finished lesson in the learner's profile", async () => {
		fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "adding fractions" },
		});
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
		lessonId = `discord:${fake.guild.id}:${thread.id}`;
		const by = { id: fake.users.learner.id };
		await answerFractionsLesson(backend.tutor, lessonId, by);
		fake.slash({ user: fake.users.learner, channelId: thread.id, subcommand: "end" });
		const profile = await until(async () => {
			const p = await backend.learning.profile(learnerKey());
			return p?.lessons.length ? p : undefined;
		}, "the profile");
		expect(profile.lessons[0]).toMatchObject({ sessionId: lessonId, topic: "adding fractions", questionsAnswered: 4 });
		expect(profile.lessons[0]?.nodes.find((n) => n.id === "common-denominator")?.mastery).toBe("learned");
		expect((await backend.learning.items(learnerKey())).map((i) => i.nodeId)).toEqual(["common-denominator"]);
	});

	it("closes with what comes back for review and when, and a one-tap Remind me", async () => {
		const threadId = lessonId.split(":")[2] ?? "";
		const closing = await fake.waitFor(
			() => fake.channelMessages(threadId).find((m) => m.content.includes("Coming back for review")),
			"the closing message",
		);
		const [item] = await backend.learning.items(learnerKey());
		const days = Math.ceil((Date.parse(item?.card.due ?? "") - clock.now().getTime()) / 86_400_000);
		expect(closing.content).toContain("Lesson ended by");
		expect(closing.content).toContain(`• Common denominators: in ${days} days (${item?.card.due.slice(0, 10)})`);
		expect(closing.content).toContain("`/lesson review` works any time");
		const remind = customIds(closing).find((id) => id.includes("lh-remind-me")) ?? "";
		expect(remind).not.toBe("");
		const before = fake.ephemeralsFor(fake.users.learner).length;
		fake.click({ user: fake.users.learner, messageId: closing.id, customId: remind });
		const said = await fake.waitFor(
			() =>
				fake
					.ephemeralsFor(fake.users.learner)
					.slice(before)
					.find((m) => m.content !== ""),
			"the reminder notice",
		);
		expect(said.content).toMatch(/^Reminders are on/);
		const profile = await backend.learning.profile(learnerKey());
		expect(profile?.reminders?.on).toBe(true);
		// The nudge goes to this lesson's thread; its Review now opens the review in the lesson's channel.
		expect(JSON.parse(profile?.reminders?.where ?? "{}")).toMatchObject({
			threadId: lessonId,
			channelId: fake.ids.general,
		});
	});

	it("gives a second lesson's prober what the learner already knows", async () => {
		fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "subtracting fractions" },
		});
		const thread = await fake.waitFor(() => fake.createdThreads()[1], "the second lesson thread");
		const id = `discord:${fake.guild.id}:${thread.id}`;
		const record = await until(() => backend.sessions.get(id), "the second lesson");
		const note = record.messages[0]?.parts[0];
		expect(note?.type === "text" ? note.text : "").toContain("learned Common denominators");
		await backend.tutor.idle(id);
	});

	/** The ephemeral messages `user` got that are not in `seen` (earlier tests' replies), oldest first. */
	const newEphemerals = (user: typeof fake.users.learner, seen: ReadonlySet<string>) =>
		fake.ephemeralsFor(user).filter((m) => !seen.has(m.id));
	const seenNow = (user: typeof fake.users.learner) => new Set(fake.ephemeralsFor(user).map((m) => m.id));

	/** Answer a private review's question through its Answer button and form. */
	async function answerInForm(question: { id: string }, user: typeof fake.users.learner, text: string) {
		const open = customIds(question as Parameters<typeof customIds>[0]).find((id) => id.startsWith("lh:open:")) ?? "";
		const opened = fake.click({ user, messageId: question.id, customId: open });
		await fake.waitFor(() => opened.modal, "the answer form");
		const control = open.slice("lh:open:".length);
		return fake.submitModal({ user, opened, values: { [`lh:text:${control}`]: text } });
	}

	it("says nothing is due yet, then reviews the due item privately days later and lengthens its interval", async () => {
		const early = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "review" });
		expect((await replyOf(early, "the review reply")).content).toMatch(/^Nothing is due\. Next review: in \d+ days/);

		clock.advanceDays(4);
		const before = (await backend.learning.items(learnerKey()))[0]?.card;
		const threads = fake.createdThreads().length;
		const seen = seenNow(fake.users.learner);
		const start = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "review" });
		// The first question is the command's own ephemeral reply: no thread, nothing anyone else can read.
		const question = await replyOf(start, "the review question");
		expect(question.visibleTo).toBe(fake.users.learner.id);
		expect(question.content).toContain("Review 1 of 1");
		expect(question.content).toContain("Common denominator of 1/2 and 1/5?");
		expect(fake.createdThreads()).toHaveLength(threads);
		expect(fake.channelMessages(fake.ids.general).some((m) => m.content.includes("Review"))).toBe(false);
		await answerInForm(question, fake.users.learner, "it's ten");
		const closing = await fake.waitFor(
			() => newEphemerals(fake.users.learner, seen).find((m) => m.content.startsWith("Review done")),
			"the closing line",
		);
		expect(closing.content).toMatch(/^Review done: 1 of 1 right\. Next review: in \d+ days/);
		expect(closing.visibleTo).toBe(fake.users.learner.id);
		expect(newEphemerals(fake.users.learner, seen).map((m) => m.content)).toContainEqual(
			expect.stringMatching(/^Your answer: it's ten\n✅ Right: 10\./),
		);
		// Every reply, follow-up and form fit Discord's limits.
		expect(fake.problems()).toEqual([]);
		const after = (await backend.learning.items(learnerKey()))[0]?.card;
		expect(after?.scheduledDays).toBeGreaterThan(before?.scheduledDays ?? Infinity);
		expect(new Date(after?.due ?? 0).getTime()).toBeGreaterThan(clock.now().getTime());
	});

	it("shortens the interval after a miss, and refuses someone else's click privately", async () => {
		const before = (await backend.learning.items(learnerKey()))[0]?.card;
		clock.advanceDays((before?.scheduledDays ?? 0) + 1);
		const seen = seenNow(fake.users.learner);
		const seenOther = seenNow(fake.users.other);
		const start = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "review" });
		const question = await replyOf(start, "the review question");
		expect(question.content).toContain("Review 1 of 1");
		// Someone else's click on the learner's (ephemeral) card does not count.
		const open = customIds(question).find((id) => id.startsWith("lh:open:")) ?? "";
		fake.click({ user: fake.users.other, messageId: question.id, customId: open });
		await fake.waitFor(
			() =>
				newEphemerals(fake.users.other, seenOther).find((m) => m.content === "This review belongs to someone else."),
			"the refusal",
		);
		await answerInForm(question, fake.users.learner, "7");
		await fake.waitFor(
			() => newEphemerals(fake.users.learner, seen).find((m) => m.content.startsWith("Review done: 0 of 1")),
			"the closing line",
		);
		expect(newEphemerals(fake.users.learner, seen).map((m) => m.content)).toContainEqual(
			"Your answer: 7\nNot quite: the answer is **10**. It comes back sooner.",
		);
		const after = (await backend.learning.items(learnerKey()))[0]?.card;
		expect(after?.scheduledDays).toBeLessThan(before?.scheduledDays ?? 0);
		expect((await backend.learning.profile(learnerKey()))?.reviewsDone).toBe(2);
	});

	it("sends a reminder once across a restart, and its Review now starts a private review", async () => {
		const on = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "remind",
			options: { on: true },
		});
		expect((await replyOf(on, "the remind reply")).content).toMatch(/^Reminders are on/);
		clock.advanceDays(30);
		expect(await adapter.sendReminders()).toBe(1);
		await adapter.flush(10_000);
		await shut();
		await open(); // a restart: the once-a-day guard is in the store
		expect(await adapter.sendReminders()).toBe(0);
		// In the learner's latest lesson thread (the second lesson's).
		const latest = fake.createdThreads()[1]?.id ?? "";
		const nudges = fake.channelMessages(latest).filter((m) => m.content.includes("Time to review"));
		expect(nudges).toHaveLength(1);
		const threadsBefore = fake.createdThreads().length;
		const seen = seenNow(fake.users.learner);
		fake.click({ user: fake.users.learner, messageId: nudges[0]?.id ?? "", customId: customIds(nudges[0])[0] ?? "" });
		const question = await fake.waitFor(
			() => newEphemerals(fake.users.learner, seen).find((m) => m.content.includes("Review 1 of 1")),
			"the review question",
		);
		expect(customIds(question).some((id) => id.startsWith("lh:open:lh-review:"))).toBe(true);
		expect(fake.createdThreads()).toHaveLength(threadsBefore);
		expect(fake.channelMessages(latest).some((m) => m.content.includes("Review 1 of 1"))).toBe(false);
	});

	it("shows progress as a private PNG", async () => {
		const it = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "progress" });
		const reply = await replyOf(it, "the progress reply");
		expect(reply.visibleTo).toBe(fake.users.learner.id);
		expect(reply.content).toContain("adding fractions: 1 learned");
		expect(reply.attachments[0]?.filename).toBe("progress.png");
		expect(reply.attachments[0]?.data.subarray(1, 4).toString()).toBe("PNG");
	});

	it("gives admins a CSV whose figures equal the transcript's, and refuses members", async () => {
		const refused = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "report" });
		expect((await replyOf(refused, "the refusal")).content).toMatch(/^Only admins/);
		const it = fake.slash({ user: fake.users.admin, channelId: fake.ids.general, subcommand: "report" });
		const reply = await replyOf(it, "the report");
		const csv = reply.attachments[0]?.data.toString("utf8") ?? "";
		const [header, ...rows] = csv.trim().split("\r\n");
		expect(header).toBe(
			"member,lesson,topic,started,ended,questions_answered,first_try_accuracy,nodes_learned,reviews_done",
		);
		const row = rows.find((r) => r.includes(lessonId))?.split(",") ?? [];
		// The same figures, counted here from the stored transcript.
		const record = await backend.sessions.get(lessonId);
		const outputs = (record?.messages ?? [])
			.flatMap((m) => m.parts as Array<{ type: string; output?: Record<string, unknown> }>)
			.filter((p) => p.type === "tool-quiz" && typeof p.output?.correct === "boolean")
			.map((p) => p.output ?? {});
		const firstTry = outputs.filter((o) => o.correct === true && !o.attempts && !o.hints && !o.revealed).length;
		expect(row[0]).toBe(fake.users.learner.id);
		expect(Number(row[5])).toBe(outputs.length);
		expect(Number(row[6])).toBeCloseTo(firstTry / outputs.length, 3);
		expect(Number(row[7])).toBe(1);
		expect(Number(row[8])).toBe(2); // the two reviews answered (the reminder's review was not)
	});

	it("forgets the learner after the confirm button: no key of theirs is left in the store", async () => {
		const it = fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "forget-me" });
		const ask = await replyOf(it, "the confirm card");
		const button = customIds(ask)[0] ?? "";
		expect(button).toBe("lh:pick:lh-forget-me:0");
		expect(await backend.learning.profile(learnerKey())).toBeDefined();
		const learner = fake.users.learner.id;
		const name = fake.users.learner.username;
		// A group lesson the admin started, where the learner said hello and voted (the vote is still open).
		const groupId = `discord:${fake.guild.id}:1234567890123456789`;
		const by = { id: learner, name };
		script = groupScript();
		await backend.tutor.startLesson({
			sessionId: groupId,
			topic: "fractions",
			learner: { id: fake.users.admin.id, name: fake.users.admin.username },
			mode: "group",
		});
		await backend.tutor.idle(groupId);
		await backend.tutor.handle(groupId, { type: "message", text: `hi, ${name} here`, by });
		expect(await backend.tutor.handle(groupId, { type: "answer", toolCallId: "g1", value: 0, by })).toMatchObject({
			vote: { letter: "A" },
		});
		await backend.tutor.idle(groupId);
		expect(JSON.stringify(await backend.sessions.get(groupId))).toContain(learner);
		const usageBefore = await new UsageLedger(state).month(fake.guild.id);
		expect(Object.keys(usageBefore)).toContain(learner);
		const click = fake.click({ user: fake.users.learner, messageId: ask.id, customId: button });
		await fake.waitFor(
			() => fake.ephemeralsFor(fake.users.learner).find((m) => m.content.startsWith("Done: your profile")),
			"the confirmation",
		);
		expect(click.responseType).toBeDefined();
		// The group lesson stays (the admin's), without the learner.
		const group = JSON.stringify(await backend.sessions.get(groupId));
		expect(group).toContain(fake.users.admin.id);
		expect(group).not.toContain(learner);
		expect(group).not.toMatch(new RegExp(`\\b${name}\\b`));
		// The server's token totals stay, under the anonymous bucket.
		const usageAfter = await new UsageLedger(state).month(fake.guild.id);
		expect(periodTokens(usageAfter)).toBe(periodTokens(usageBefore));
		expect(Object.keys(usageAfter)).toContain(ANONYMOUS_MEMBER);
		expect(Object.keys(usageAfter)).not.toContain(learner);
		await shut();
		const leftovers: string[] = [];
		for (const file of ["lh.sqlite", "discord.sqlite"]) {
			const db = new KeyvSqlite({ uri: `sqlite://${join(dir, file)}` });
			const all = (await db.query("SELECT key, value FROM keyv")) as Array<{ key: string; value: string }>;
			expect(all.length).toBeGreaterThan(0);
			for (const row of all)
				if (`${row.key} ${row.value}`.includes(learner) || new RegExp(`\\b${name}\\b`).test(row.value))
					leftovers.push(row.key);
			await db.disconnect();
		}
		expect(leftovers).toEqual([]);
		await open();
	});
});
