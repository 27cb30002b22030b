/**
 * A study group votes on Slack (real Bolt over HTTP against the fake Slack, the real engine on a
 * scripted model, SQLite): three members vote privately (chat.postEphemeral each), one changes
 * their vote, one tally message follows in the thread with the right answer marked and the
 * names shown (the workspace's `vote_names on`), and `/lesson status` lists each member.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore, createTutor, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { findControl, type Running, startAdapter, textOf } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };
const BOB = { user: "U2", name: "bob", channel: "C1" };
const CY = { user: "U3", name: "cy", channel: "C1" };

const check = {
	type: "check",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};

describe("a Slack study group votes", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let tutor: Tutor;
	let state: StateStore;
	let running: Running;
	const model = scriptedModel([
		{
			calls: [
				{ name: "probe_done", input: { assessment: { strands: [{ strand: "fractions", assessment: "basics" }] } } },
			],
		},
		{ text: "Vote, everyone.", calls: [{ name: "quiz", input: check, id: "v1" }] },
		{ text: "Nearly all of you: 1/2. Well reasoned." },
	]);

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-votes-"));
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "U2", name: "bob" },
				{ id: "U3", name: "cy" },
			],
		});
		const storeUrl = `sqlite://${join(dir, "lessons.sqlite")}`;
		tutor = createTutor({ model, store: await createSessionStore(storeUrl), maxRetries: 0 });
		state = openStateStore(storeUrl, "slack");
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state }, { adminUserIds: ["U1"] });
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await tutor?.close();
		await state?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	const ephemeralTo = (user: string, pattern: RegExp) =>
		fake.waitFor(
			() =>
				fake.callsTo("chat.postEphemeral").find((c) => c.params.user === user && pattern.test(String(c.params.text))),
			`a notice to ${user} matching ${pattern}`,
		);

	it("three private votes, a changed vote, one tally with names, per-member results in status", async () => {
		await running.sender.command("/lesson", "config vote_names on", ADA);
		await fake.waitFor(
			() => fake.callsTo("response_url").find((c) => /the tally names voters/.test(String(c.params.text))),
			"the saved vote setting",
		);
		await running.sender.command("/lesson", "start fractions --group", ADA);
		const quiz = await fake.waitFor(() => findControl(fake, "lh:pick:v1:"), "the quiz", 20_000);
		const parentTs = quiz.message.threadTs as string;
		const sessionId = `slack:${fake.teamId}:C1:${parentTs}`;
		for (const who of [BOB, CY])
			await running.sender.event({
				type: "message",
				user: who.user,
				text: `hi from ${who.name}`,
				ts: running.sender.nextTs(),
				channel: "C1",
				thread_ts: parentTs,
			});
		for (let i = 0; i < 200 && ((await tutor.getSession(sessionId))?.messageCount ?? 0) < 4; i++)
			await new Promise((done) => setTimeout(done, 25));

		await running.sender.action(ADA, quiz.message.ts, { action_id: "lh:pick:v1:1" });
		await ephemeralTo("U1", /^Your vote: B \(2\/8\)/);
		await running.sender.action(BOB, quiz.message.ts, { action_id: "lh:pick:v1:0" });
		await ephemeralTo("U2", /^Your vote: A \(1\/2\)/);
		await running.sender.action(ADA, quiz.message.ts, { action_id: "lh:pick:v1:0" });
		await ephemeralTo("U1", /^Vote changed: A \(1\/2\)/);
		const tallies = () =>
			fake
				.callsTo("chat.postMessage")
				.filter((c) => c.params.thread_ts === parentTs && /Vote closed/.test(textOf(c.params)));
		expect(tallies()).toHaveLength(0);
		await running.sender.action(CY, quiz.message.ts, { action_id: "lh:pick:v1:0" });
		await ephemeralTo("U3", /^Your vote: A/);

		const tally = await fake.waitFor(() => tallies()[0], "the tally");
		const text = textOf(tally.params);
		expect(text).toContain("3 votes");
		expect(text).toMatch(/A\. 1\/2: █+ 3 ✓/);
		expect(text).toMatch(/ada: A · bob: A · cy: A/);
		await tutor.idle(sessionId);
		await fake.waitFor(
			() => fake.callsTo("chat.postMessage").find((c) => /Well reasoned/.test(textOf(c.params))),
			"the teacher's reply to the tally",
		);
		expect(tallies()).toHaveLength(1);
		expect(model.doStreamCalls).toHaveLength(3); // unanimous: no revote

		await running.sender.command("/lesson", "status", { ...ADA, channel: "C1" });
		const status = await fake.waitFor(
			() => fake.callsTo("response_url").find((c) => /Members \(this lesson\)/.test(String(c.params.text))),
			"the status",
		);
		for (const id of ["U1", "U2", "U3"]) expect(String(status.params.text)).toContain(`<@${id}>: 1 answered, 1 right`);
	});
});
