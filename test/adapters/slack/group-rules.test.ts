/**
 * Study groups that hold, on the fake Slack (real Bolt over signed HTTP, the real engine on a
 * scripted model, SQLite, a clock the test moves): a vote waits for every member active in the
 * last ten minutes, a member who arrives mid-vote included (no tally on two of three), and not
 * for one who spoke long ago; when the lesson ends, `/lesson report` has a row for every
 * participant, each from their own ballots, and each profile holds its member's own mastery.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	createLearning,
	createSessionStore,
	createTutor,
	type Learning,
	openStateStore,
	type StateStore,
} from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { ACTIVE_MINUTES } from "../../../src/core/votes.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { assessmentInput, planMermaid } from "../../fixtures/lesson-script.ts";
import { findControl, type Running, startAdapter, textOf } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };
const BOB = { user: "U2", name: "bob", channel: "C1" };
const CY = { user: "U3", name: "cy", channel: "C1" };
const DAN = { user: "U4", name: "dan", channel: "C1" };

const check = {
	type: "check",
	nodeId: "common-denominator",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};

describe("a Slack study group that holds", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let tutor: Tutor;
	let state: StateStore;
	let profiles: StateStore;
	let learning: Learning;
	let running: Running;
	let offset = 0;
	const clock = () => new Date(Date.now() + offset);
	const model = scriptedModel([
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ text: "Vote, everyone.", calls: [{ name: "quiz", input: check, id: "v1" }] },
		{ text: "Bob chose 2/8: what does the 8 count? Think again, all of you." },
		{ text: "All three of you: 1/2." },
	]);

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-groups-"));
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "U2", name: "bob" },
				{ id: "U3", name: "cy" },
				{ id: "U4", name: "dan" },
			],
		});
		const storeUrl = `sqlite://${join(dir, "lessons.sqlite")}`;
		const sessions = await createSessionStore(storeUrl);
		tutor = createTutor({ model, store: sessions, maxRetries: 0, now: clock });
		profiles = openStateStore(storeUrl, "learnharness:profiles");
		learning = createLearning({ state: profiles, sessions, now: clock });
		state = openStateStore(storeUrl, "slack");
		running = await startAdapter(
			fake,
			{ tutor, renderer: stubRenderer(undefined), state, learning: { learning } },
			{ adminUserIds: ["U1"] },
		);
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await tutor?.close();
		await state?.close();
		await profiles?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	const ephemeralTo = (user: string, pattern: RegExp) =>
		fake.waitFor(
			() =>
				fake.callsTo("chat.postEphemeral").find((c) => c.params.user === user && pattern.test(String(c.params.text))),
			`a notice to ${user} matching ${pattern}`,
		);

	it("waits for a member who arrives mid-vote, not for one who left; every participant has a report row", async () => {
		await running.sender.command("/lesson", "start fractions --group", ADA);
		const quiz = await fake.waitFor(() => findControl(fake, "lh:pick:v1:"), "the quiz", 20_000);
		const parentTs = quiz.message.threadTs as string;
		const sessionId = `slack:${fake.teamId}:C1:${parentTs}`;
		let said = (await tutor.getSession(sessionId))?.messageCount ?? 0;
		const say = async (who: typeof ADA, text: string) => {
			await running.sender.event({
				type: "message",
				user: who.user,
				text,
				ts: running.sender.nextTs(),
				channel: "C1",
				thread_ts: parentTs,
			});
			said++;
			for (let i = 0; i < 200 && ((await tutor.getSession(sessionId))?.messageCount ?? 0) < said; i++)
				await new Promise((done) => setTimeout(done, 25));
		};
		const tallies = () =>
			fake
				.callsTo("chat.postMessage")
				.filter((c) => c.params.thread_ts === parentTs && /Vote closed|Revote closed/.test(textOf(c.params)));

		// Dan says hello and leaves; the others come back later.
		await say(DAN, "hi, dan here, can't stay");
		offset += (ACTIVE_MINUTES + 1) * 60_000;
		await say(BOB, "hi from bob");
		await running.sender.action(ADA, quiz.message.ts, { action_id: "lh:pick:v1:0" });
		await ephemeralTo("U1", /^Your vote: A/);
		// Cy arrives while the vote is open: the vote waits for Cy too.
		await say(CY, "hi, just joined, what are we voting on?");
		await running.sender.action(BOB, quiz.message.ts, { action_id: "lh:pick:v1:1" });
		await ephemeralTo("U2", /^Your vote: B/);
		await tutor.idle(sessionId);
		// Two of three voted: the question is still open, and no tally was posted.
		expect((await tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "v1" }]);
		expect(tallies()).toHaveLength(0);
		await running.sender.action(CY, quiz.message.ts, { action_id: "lh:pick:v1:0" });
		await ephemeralTo("U3", /^Your vote: A/);
		// Three of three (Dan is not waited for): the tally at once, not on the timer.
		const tally = await fake.waitFor(() => tallies()[0], "the tally");
		expect(textOf(tally.params)).toContain("3 votes");
		expect(textOf(tally.params)).not.toContain("time's up");

		// The split's revote: everyone right now.
		const revote = await fake.waitFor(() => findControl(fake, "lh:pick:v1~revote:"), "the revote", 20_000);
		for (const [who, user] of [
			[ADA, "U1"],
			[BOB, "U2"],
			[CY, "U3"],
		] as const) {
			await running.sender.action(who, revote.message.ts, { action_id: "lh:pick:v1~revote:0" });
			await ephemeralTo(user, /^Your vote: A/);
		}
		await fake.waitFor(() => tallies()[1], "the revote's tally");
		await tutor.idle(sessionId);
		await fake.waitFor(
			() => fake.callsTo("chat.postMessage").find((c) => /All three of you/.test(textOf(c.params))),
			"the teacher's reply",
		);

		// The lesson ends: every participant's profile is written, each from their own ballots.
		await running.sender.command("/lesson", "end", { ...ADA, channel: "C1" });
		const key = (user: string) => `slack:${fake.teamId}:${user}`;
		for (let i = 0; i < 400 && !(await learning.profile(key("U4"))); i++)
			await new Promise((done) => setTimeout(done, 25));
		await running.sender.command("/lesson", "report", ADA);
		const upload = await fake.waitFor(
			() => fake.uploads.find((u) => u.filename.endsWith(".csv") && u.channelId && u.bytes),
			"the CSV",
		);
		expect(upload.channelId).toBe("DU1");
		const rows = (upload.bytes?.toString("utf8") ?? "")
			.split("\r\n")
			.filter((r) => r.includes(sessionId))
			.map((r) => r.split(","))
			.map((r) => [r[0], r[5], r[6], r[7]])
			.sort();
		expect(rows).toEqual([
			["U1", "2", "1.000", "1"], // right twice: learned
			["U2", "2", "0.000", "0"], // wrong, then right on the revote: a second try
			["U3", "2", "1.000", "1"],
			["U4", "0", "0.000", "0"], // spoke, never voted
		]);
		const node = async (user: string) =>
			(await learning.profile(key(user)))?.lessons[0]?.nodes.find((n) => n.id === "common-denominator")?.mastery;
		expect([await node("U1"), await node("U2"), await node("U3"), await node("U4")]).toEqual([
			"learned",
			"shaky",
			"learned",
			"not-yet",
		]);
	});
});
