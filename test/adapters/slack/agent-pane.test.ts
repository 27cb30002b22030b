/**
 * The agent pane on the strict fake Slack (real Bolt, the real engine and learning service): a member opens the
 * app's pane (`assistant_thread_started` for an app thread in their DM), the bot sets up to four suggested
 * prompts without thread_ts (an agent app's call with it "will silently fail"), and what the member types in
 * that thread starts a private solo lesson right there, titled with its topic; a lesson's thread is not
 * re-started by a later message.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import { type LearnerBackend, openLearnerBackend, testClock } from "../../fixtures/profile-stack.ts";
import { type Running, startAdapter, textOf } from "./harness.ts";

describe("Slack agent pane: suggested prompts and a private lesson in the app thread", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let backend: LearnerBackend;
	let running: Running;

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-pane-"));
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		const model = scriptedModel(fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Bye!" }));
		backend = await openLearnerBackend(dir, model, testClock());
		running = await startAdapter(fake, {
			tutor: backend.tutor,
			renderer: stubRenderer(PNG.sync.write(new PNG({ width: 4, height: 4 }))),
			state: createMemoryStateStore(),
			learning: { learning: backend.learning },
		});
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await backend?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	const openPane = async () => {
		const thread = fake.openAgentThread("U1");
		await running.sender.event({
			type: "assistant_thread_started",
			assistant_thread: {
				user_id: "U1",
				context: { channel_id: "C1", team_id: fake.teamId },
				channel_id: thread.channel,
				thread_ts: thread.threadTs,
			},
			event_ts: running.sender.nextTs(),
		});
		return thread;
	};

	it("sets suggested prompts for a newcomer's pane, without thread_ts", async () => {
		const thread = await openPane();
		const shown = await fake.waitFor(() => fake.suggested.get(thread.channel), "the pane's suggested prompts");
		expect(shown.title).toBe("Learn something");
		expect(shown.prompts.map((p) => p.message)).toEqual(["Fractions", "How binary search works"]);
		const calls = fake.callsTo("assistant.threads.setSuggestedPrompts");
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.every((c) => c.ok && c.params.thread_ts === undefined)).toBe(true);
	});

	it("starts a private solo lesson in the pane's thread from what the member types, titled with its topic", async () => {
		const thread = await openPane();
		await running.sender.event({
			type: "message",
			channel: thread.channel,
			channel_type: "im",
			user: "U1",
			text: "fractions",
			ts: running.sender.nextTs(),
			thread_ts: thread.threadTs,
		});
		const first = await fake.waitFor(
			() => [...fake.messages.values()].find((m) => m.channel === thread.channel && m.threadTs === thread.threadTs),
			"the lesson's first post in the pane thread",
		);
		expect(textOf(first)).not.toBe("");
		await fake.waitFor(() => fake.titles.get(`${thread.channel}:${thread.threadTs}`), "the thread's title");
		expect(fake.titles.get(`${thread.channel}:${thread.threadTs}`)).toBe("fractions");
		const sessionId = `slack:${fake.teamId}:${thread.channel}:${thread.threadTs}`;
		await backend.tutor.idle(sessionId);
		const session = await backend.tutor.getSession(sessionId);
		expect(session?.mode).toBe("solo");
		// No parent message was posted in the DM: the lesson lives in the app thread.
		expect(
			fake.callsTo("chat.postMessage").filter((c) => c.params.channel === thread.channel && !c.params.thread_ts),
		).toEqual([]);
		// A message in the running lesson's thread is the learner's, not a new start.
		const titled = fake.callsTo("assistant.threads.setTitle").length;
		await running.sender.event({
			type: "message",
			channel: thread.channel,
			channel_type: "im",
			user: "U1",
			text: "what is a denominator?",
			ts: running.sender.nextTs(),
			thread_ts: thread.threadTs,
		});
		await backend.tutor.idle(sessionId);
		expect(fake.callsTo("assistant.threads.setTitle").length).toBe(titled);
		expect(fake.limitProblems()).toEqual([]);
	});
});

describe("the fake Slack refuses suggested prompts and titles as Slack would", () => {
	let fake: FakeSlack;
	afterAll(() => fake?.close());

	it("wants one to four prompts with a title and a message each, and a title with an existing thread", async () => {
		fake = await startFakeSlack();
		const call = (method: string, params: Record<string, unknown>) =>
			fetch(`${fake.apiUrl}${method}`, {
				method: "POST",
				headers: { "content-type": "application/json", authorization: "Bearer xoxb-test" },
				body: JSON.stringify(params),
			}).then((r) => r.json() as Promise<{ ok: boolean; error?: string }>);
		const prompt = { title: "a", message: "a" };
		const set = "assistant.threads.setSuggestedPrompts";
		expect(await call(set, { channel_id: "DU1", prompts: [] })).toMatchObject({ ok: false });
		expect(await call(set, { channel_id: "DU1", prompts: Array(5).fill(prompt) })).toMatchObject({ ok: false });
		expect(await call(set, { channel_id: "DU1", prompts: [{ title: "a" }] })).toMatchObject({ ok: false });
		expect(await call(set, { prompts: [prompt] })).toMatchObject({ ok: false });
		// With thread_ts an agent app's call answers ok and shows nothing.
		expect(await call(set, { channel_id: "DU1", thread_ts: "1.1", prompts: [prompt] })).toMatchObject({ ok: true });
		expect(fake.suggested.get("DU1")).toBeUndefined();
		expect(await call(set, { channel_id: "DU1", prompts: [prompt] })).toMatchObject({ ok: true });
		expect(fake.suggested.get("DU1")?.prompts).toEqual([prompt]);
		const title = "assistant.threads.setTitle";
		expect(await call(title, { channel_id: "DU1", thread_ts: "1.1", title: "x" })).toMatchObject({
			ok: false,
			error: "invalid_thread_ts",
		});
		const thread = fake.openAgentThread("U1");
		expect(await call(title, { channel_id: thread.channel, thread_ts: thread.threadTs })).toMatchObject({ ok: false });
		expect(await call(title, { channel_id: thread.channel, thread_ts: thread.threadTs, title: "x" })).toMatchObject({
			ok: true,
		});
	});
});
