/**
 * Lessons across lessons, on each chat platform (the terminal's review, progress and forget-me: terminal/
 * review.test.ts and terminal/profile-commands.test.ts). A lesson builds the learner's profile and closes with
 * what comes back for review and a one-tap Remind me; a second lesson's prober gets what is known; `/lesson
 * review` days later (a moved clock) asks the due item privately (Discord: the member's own replies and form;
 * Slack: a review thread of typed answers), grades it and reschedules it with FSRS (longer after a success,
 * shorter after a miss); a reminder goes out once across a restart and its Review now starts a review;
 * `/lesson progress` sends a PNG privately; `/lesson report` gives admins a CSV whose figures equal the
 * transcript's; forget-me leaves no key of the learner in either store.
 */

import KeyvSqlite from "@keyv/sqlite";
import { describe, expect, it } from "vitest";
import { ANONYMOUS_MEMBER, periodTokens, UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { assessmentInput, fractionsLesson, planMermaid } from "../../fixtures/lesson-script.ts";
import { answerFractionsLesson, testClock } from "../../fixtures/profile-stack.ts";
import { CHATS, learnerKey, noticeOf, switchable, until, useChat } from "./chat.ts";

const groupCheck = {
	type: "check",
	nodeId: "common-denominator",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};

describe.each(CHATS)("learner profile, review, progress, report and forget-me on %s", { timeout: 60_000 }, (name) => {
	const scripts = switchable([
		...fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Well done!" }),
		{ text: "Welcome back!" },
	]);
	const clock = testClock();
	const handle = useChat(name, { model: scripts.model, clock, budgets: true });
	const key = () => learnerKey(handle.chat, "learner");
	const items = async () => handle.chat.backend.learning.items(key());
	let lessonId = "";
	let secondId = "";

	/** A review as the learner takes it, answering `answer`; everything it showed them. */
	async function review(answer: string): Promise<string[]> {
		const { chat } = handle;
		if (name === "discord") {
			const before = chat.notices("learner").length;
			const question = await chat.command("learner", "review");
			// The first question is the command's own private reply: no thread, nothing anyone else can read.
			expect(question.privateTo).toBe(chat.people.learner.id);
			await chat.form("learner", question, question.controls.find((c) => c.startsWith("lh:open:")) ?? "", answer);
			await chat.waitFor(
				() =>
					chat
						.notices("learner")
						.slice(before)
						.some((n) => n.startsWith("Review done")),
				"done",
			);
			return [question.text, ...chat.notices("learner").slice(before)];
		}
		const reviews = chat.find(/Review 1 of/).length;
		expect((await chat.command("learner", "review")).text).toMatch(/^Your review is ready/);
		const question = await chat.waitFor(() => chat.find(/Review 1 of/)[reviews], "the question");
		const thread = `slack:${chat.community}:${chat.channel}:${question.thread}`;
		await chat.say("learner", thread, answer);
		await chat.waitFor(() => chat.posts(thread).some((p) => p.startsWith("Review done")), "done");
		return chat.posts(thread);
	}

	it("records a finished lesson, and closes with what comes back when and a one-tap Remind me", async () => {
		const { chat } = handle;
		await chat.command("admin", "config member_tokens_per_day 1000000"); // budgets on: every turn is charged
		await chat.command("admin", "config server_tokens_per_day 10000000");
		({ sessionId: lessonId } = await chat.start("learner", "adding fractions"));
		await answerFractionsLesson(chat.backend.tutor, lessonId, chat.people.learner);
		await chat.command("learner", "end", lessonId);
		const profile = await until(async () => {
			const p = await chat.backend.learning.profile(key());
			return p?.lessons.length ? p : undefined;
		}, "the profile");
		expect(profile.lessons[0]).toMatchObject({ sessionId: lessonId, topic: "adding fractions", questionsAnswered: 4 });
		expect(profile.lessons[0]?.nodes.find((n) => n.id === "common-denominator")?.mastery).toBe("learned");
		expect((await items()).map((i) => i.nodeId)).toEqual(["common-denominator"]);

		const closing = await chat.waitFor(() => chat.find(/Coming back for review/)[0], "the closing message");
		const due = (await items())[0]?.card.due ?? "";
		const days = Math.ceil((Date.parse(due) - clock.now().getTime()) / 86_400_000);
		expect(closing.text).toContain(`• Common denominators: in ${days} days (${due.slice(0, 10)})`);
		expect(closing.text).toContain("Lesson ended by");
		expect(closing.text).toContain("/lesson review` works any time");
		expect(closing.controls).toContain("lh:pick:lh-remind-me:0");
		await noticeOf(chat, "learner", closing, "lh:pick:lh-remind-me:0", /^Reminders are on/);
		const reminders = (await chat.backend.learning.profile(key()))?.reminders;
		expect(reminders?.on).toBe(true);
		// The nudge goes to this lesson's thread; its Review now opens the review in the lesson's channel.
		expect(JSON.parse(reminders?.where ?? "{}")).toMatchObject({ threadId: lessonId, channelId: chat.channel });
	});

	it("gives a second lesson's prober what the learner already knows", async () => {
		const { chat } = handle;
		({ sessionId: secondId } = await chat.start("learner", "subtracting fractions"));
		const record = await until(() => chat.backend.sessions.get(secondId), "the second lesson");
		const note = record.messages[0]?.parts[0];
		expect(note?.type === "text" ? note.text : "").toContain("learned Common denominators");
		await chat.backend.tutor.idle(secondId);
	});

	it("says nothing is due yet; days later reviews the due item privately and lengthens its interval", async () => {
		const { chat } = handle;
		expect((await chat.command("learner", "review")).text).toMatch(/^Nothing is due\. Next review: in \d+ days/);
		clock.advanceDays(4);
		const before = (await items())[0]?.card;
		const threads = chat.find(/Lesson|Lektion/).length;
		const seen = await review(name === "discord" ? "it's ten" : "10");
		expect(seen.join("\n")).toContain("Common denominator of 1/2 and 1/5?");
		expect(seen.find((s) => s.startsWith("Review done"))).toMatch(
			/^Review done: 1 of 1 right\. Next review: in \d+ days/,
		);
		if (name === "discord") {
			expect(seen).toContainEqual(expect.stringMatching(/^Your answer: it's ten\n✅ Right: 10\./));
			expect(chat.find(/Lesson|Lektion/)).toHaveLength(threads); // no thread, nothing public
		}
		const after = (await items())[0]?.card;
		expect(after?.scheduledDays).toBeGreaterThan(before?.scheduledDays ?? Infinity);
		expect(new Date(after?.due ?? 0).getTime()).toBeGreaterThan(clock.now().getTime());
		expect(chat.problems()).toEqual([]);
	});

	it("shortens the interval after a miss", async () => {
		const { chat } = handle;
		const before = (await items())[0]?.card;
		clock.advanceDays((before?.scheduledDays ?? 0) + 1);
		if (name === "discord") {
			// Someone else's click on the learner's private card does not count (Slack's review is a thread of typed answers).
			const question = await chat.command("learner", "review");
			const open = question.controls.find((c) => c.startsWith("lh:open:")) ?? "";
			await noticeOf(chat, "other", question, open, /^This review belongs to someone else\.$/);
			const notices = chat.notices("learner").length;
			await chat.form("learner", question, open, "7");
			await chat.waitFor(
				() =>
					chat
						.notices("learner")
						.slice(notices)
						.some((n) => n.startsWith("Review done: 0 of 1")),
				"done",
			);
			expect(chat.notices("learner")).toContain(
				"Your answer: 7\nNot quite: the answer is **10**. It comes back sooner.",
			);
		} else expect((await review("7")).find((s) => s.startsWith("Review done"))).toMatch(/^Review done: 0 of 1/);
		expect((await items())[0]?.card.scheduledDays).toBeLessThan(before?.scheduledDays ?? 0);
		expect((await chat.backend.learning.profile(key()))?.reviewsDone).toBe(2);
	});

	it("sends a reminder once across a restart, and its Review now starts a private review", async () => {
		const { chat } = handle;
		expect((await chat.command("learner", "remind on")).text).toMatch(/^Reminders are on/);
		clock.advanceDays(30);
		expect(await chat.sendReminders()).toBe(1);
		await chat.flush();
		await chat.restart(); // the once-a-day guard is in the store
		expect(await chat.sendReminders()).toBe(0);
		const nudges = chat.find(/Time to review/);
		expect(nudges).toHaveLength(1);
		const nudge = nudges[0] ?? nudges.at(-1)!;
		// Discord: in the learner's latest lesson thread; Slack: one direct message.
		expect(nudge.where).toBe(name === "discord" ? secondId.split(":")[2] : `D${chat.people.learner.id}`);
		const before = chat.find(/Review 1 of 1/).length;
		if (name === "discord") {
			const notices = chat.notices("learner").length;
			await chat.click("learner", nudge, nudge.controls[0] ?? "");
			await chat.waitFor(
				() =>
					chat
						.notices("learner")
						.slice(notices)
						.some((n) => n.includes("Review 1 of 1")),
				"the review",
			);
			expect(chat.posts(secondId).some((p) => p.includes("Review 1 of 1"))).toBe(false);
		} else {
			expect(nudge.controls).toContain("lh:pick:lh-review-now:0");
			await noticeOf(chat, "learner", nudge, "lh:pick:lh-review-now:0", /^Your review is ready/);
			// A review thread in the lesson's channel.
			expect((await chat.waitFor(() => chat.find(/Review 1 of/)[before], "the question")).where).toBe(chat.channel);
		}
	});

	it("sends progress as a private PNG", async () => {
		const reply = await handle.chat.command("learner", "progress");
		expect(reply.privateTo).toBe(handle.chat.people.learner.id);
		expect(reply.text).toMatch(name === "discord" ? /adding fractions: 1 learned/ : /direct messages/);
		const png = await handle.chat.waitFor(() => reply.files.find((f) => f.name === "progress.png"), "the PNG");
		expect(png.bytes?.subarray(1, 4).toString()).toBe("PNG");
	});

	it("gives admins a CSV whose figures equal the transcript's, and refuses members", async () => {
		const { chat } = handle;
		expect((await chat.command("learner", "report")).text).toMatch(/^Only admins/);
		const csv =
			(await chat.command("admin", "report")).files.find((f) => f.name.endsWith(".csv"))?.bytes?.toString("utf8") ?? "";
		const [header, ...rows] = csv.trim().split("\r\n");
		expect(header).toBe(
			"member,lesson,topic,started,ended,questions_answered,first_try_accuracy,nodes_learned,reviews_done",
		);
		const row = rows.find((r) => r.includes(lessonId))?.split(",") ?? [];
		// The same figures, counted here from the stored transcript.
		const outputs = ((await chat.backend.sessions.get(lessonId))?.messages ?? [])
			.flatMap((m) => m.parts as Array<{ type: string; output?: Record<string, unknown> }>)
			.filter((p) => p.type === "tool-quiz" && typeof p.output?.correct === "boolean")
			.map((p) => p.output ?? {});
		const firstTry = outputs.filter((o) => o.correct === true && !o.attempts && !o.hints && !o.revealed).length;
		expect(row[0]).toBe(chat.people.learner.id);
		expect(Number(row[5])).toBe(outputs.length);
		expect(Number(row[6])).toBeCloseTo(firstTry / outputs.length, 3);
		expect(Number(row[7])).toBe(1);
		expect(Number(row[8])).toBe(2); // the two reviews answered (the reminder's review was not)
	});

	it("forgets the learner after the confirm card's button: no key of theirs is left in either store", async () => {
		const { chat } = handle;
		const ask = await chat.command("learner", "forget-me");
		expect(ask.controls).toEqual(["lh:pick:lh-forget-me:0"]);
		expect(ask.privateTo).toBe(chat.people.learner.id);
		const { id: learner, name: learnerName } = chat.people.learner;
		const named = new RegExp(`\\b${learnerName}\\b`);
		// A group lesson the admin started, where the learner said hello and voted (the vote is still open).
		const groupId =
			name === "discord"
				? `discord:${chat.community}:1234567890123456789`
				: `slack:${chat.community}:C1:1700000000.000900`;
		scripts.use([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "gpd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "gplan" }] },
			{ text: "Vote, everyone.", calls: [{ name: "quiz", input: groupCheck, id: "g1" }] },
		]);
		const { tutor, sessions } = chat.backend;
		await tutor.startLesson({ sessionId: groupId, topic: "fractions", learner: chat.people.admin, mode: "group" });
		await tutor.idle(groupId);
		await tutor.handle(groupId, { type: "message", text: `hi, ${learnerName} here`, by: chat.people.learner });
		expect(
			await tutor.handle(groupId, { type: "answer", toolCallId: "g1", value: 0, by: chat.people.learner }),
		).toMatchObject({ vote: { letter: "A" } });
		await tutor.idle(groupId);
		expect(JSON.stringify(await sessions.get(groupId))).toContain(learner);
		const usageBefore = await new UsageLedger(chat.state).month(chat.community);
		expect(Object.keys(usageBefore)).toContain(learner);
		await noticeOf(chat, "learner", ask, "lh:pick:lh-forget-me:0", /^Done: your profile/);
		// The group lesson stays (the admin's), without the learner.
		const group = JSON.stringify(await sessions.get(groupId));
		expect(group).toContain(chat.people.admin.id);
		expect(group).not.toContain(learner);
		expect(group).not.toMatch(named);
		// The community's token totals stay, under the anonymous bucket.
		const usageAfter = await new UsageLedger(chat.state).month(chat.community);
		expect(periodTokens(usageAfter)).toBe(periodTokens(usageBefore));
		expect(Object.keys(usageAfter)).toContain(ANONYMOUS_MEMBER);
		expect(Object.keys(usageAfter)).not.toContain(learner);
		const leftovers: string[] = [];
		await chat.restart(async () => {
			for (const file of ["lh.sqlite", `${name}.sqlite`]) {
				const db = new KeyvSqlite({ uri: `sqlite://${chat.dir}/${file}` });
				const all = (await db.query("SELECT key, value FROM keyv")) as Array<{ key: string; value: string }>;
				expect(all.length).toBeGreaterThan(0);
				for (const row of all)
					if (`${row.key} ${row.value}`.includes(learner) || named.test(row.value)) leftovers.push(row.key);
				await db.disconnect();
			}
		});
		expect(leftovers).toEqual([]);
	});
});
