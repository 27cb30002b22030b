/**
 * The App Home tab on the strict fake Slack (real Bolt, the real engine and learning service): a member who
 * opens it (`app_home_opened`) gets views.publish with their progress per topic and the reviews due; its
 * Review now starts the review in a thread of their direct messages with the bot, where a typed answer is
 * graded; the fake refuses a view Slack would refuse (not of type home, over 100 blocks, the tab turned off).
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
import {
	answerFractionsLesson,
	type LearnerBackend,
	openLearnerBackend,
	type TestClock,
	testClock,
} from "../../fixtures/profile-stack.ts";
import { type Running, startAdapter, textOf } from "./harness.ts";

const LEARNER = { user: "U1", name: "ada", channel: "C1" };
const REVIEW_NOW = "lh-slack:home-review";

describe("Slack App Home: progress, due reviews and Review now", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let clock: TestClock;
	let backend: LearnerBackend;
	let running: Running;

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-home-"));
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		clock = testClock();
		const model = scriptedModel(fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Bye!" }));
		backend = await openLearnerBackend(dir, model, clock);
		const png = PNG.sync.write(new PNG({ width: 4, height: 4 }));
		running = await startAdapter(fake, {
			tutor: backend.tutor,
			renderer: stubRenderer(png),
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

	const openHome = async () => {
		const before = fake.callsTo("views.publish").length;
		await running.sender.event({
			type: "app_home_opened",
			user: "U1",
			channel: "DU1",
			tab: "home",
			ts: running.sender.nextTs(),
		});
		return fake.waitFor(() => fake.callsTo("views.publish")[before], "views.publish");
	};

	it("publishes a newcomer's Home tab: no lessons yet, nothing due", async () => {
		const call = await openHome();
		expect(call.ok).toBe(true);
		expect(call.params.user_id).toBe("U1");
		const view = fake.homes.get("U1");
		expect(view?.type).toBe("home");
		expect(JSON.stringify(view)).toContain("No lessons yet");
		expect(JSON.stringify(view)).not.toContain(REVIEW_NOW);
	});

	it("after a lesson and the days that make it due: progress per topic, the due count and Review now", async () => {
		await running.sender.command("/lesson", "start fractions", LEARNER);
		const parent = await fake.waitFor(
			() => [...fake.messages.values()].find((m) => m.channel === "C1" && !m.threadTs && /fractions/.test(textOf(m))),
			"the lesson's parent message",
		);
		const sessionId = `slack:${fake.teamId}:C1:${parent.ts}`;
		const ada = { id: "U1", name: "ada" };
		await answerFractionsLesson(backend.tutor, sessionId, ada);
		const recalled = await backend.tutor.handle(sessionId, {
			type: "reply",
			toolCallId: "recall",
			text: "denominators",
			by: ada,
		});
		expect(recalled.ok).toBe(true);
		const key = `slack:${fake.teamId}:U1`;
		for (let i = 0; i < 200 && ((await backend.learning.profile(key))?.lessons.length ?? 0) === 0; i++)
			await new Promise((r) => setTimeout(r, 25));
		clock.advanceDays(60);

		await openHome();
		const view = JSON.stringify(fake.homes.get("U1"));
		expect(view).toContain("fractions");
		expect(view).toMatch(/\d+ learned, \d+ shaky, \d+ not yet/);
		expect(view).toMatch(/ideas? (is|are) due for review/);
		expect(view).toContain(REVIEW_NOW);
		expect(fake.limitProblems()).toEqual([]);
	});

	it("Review now opens the review in a thread of the learner's DM with the bot, and publishes the tab again", async () => {
		const publishes = fake.callsTo("views.publish").length;
		const home = fake.homes.get("U1") ?? {};
		// A click on the Home tab's button: its container is the view, not a message.
		await running.sender.interactive({
			type: "block_actions",
			team: { id: fake.teamId, domain: "fake" },
			user: { id: "U1", username: "ada", name: "ada", team_id: fake.teamId },
			api_app_id: "A0APP",
			token: "legacy-verification-token",
			trigger_id: running.sender.newTrigger(),
			container: { type: "view", view_id: home.id },
			view: { ...home, team_id: fake.teamId, app_id: "A0APP", bot_id: fake.botId, hash: "h", state: { values: {} } },
			actions: [{ action_id: REVIEW_NOW, block_id: "b", type: "button", value: "review", action_ts: "1" }],
		});
		const question = await fake.waitFor(
			() => [...fake.messages.values()].find((m) => m.channel === "DU1" && m.threadTs && /Review 1 of/.test(textOf(m))),
			"the first review question in the DM",
		);
		expect(fake.callsTo("conversations.open").some((c) => c.params.users === "U1")).toBe(true);
		await fake.waitFor(() => fake.callsTo("views.publish").length > publishes, "the tab published again");

		// The learner types the answer in the DM thread (a message.im event): it is graded there.
		await running.sender.event({
			type: "message",
			channel: "DU1",
			channel_type: "im",
			user: "U1",
			text: "10",
			ts: running.sender.nextTs(),
			thread_ts: question.threadTs,
		});
		await fake.waitFor(
			() => [...fake.messages.values()].some((m) => m.threadTs === question.threadTs && /Review done/.test(textOf(m))),
			"the review's end",
		);
		expect(fake.limitProblems()).toEqual([]);
	});
});

describe("the fake Slack refuses views.publish as Slack would", () => {
	let fake: FakeSlack;
	afterAll(() => fake?.close());

	it("wants user_id and a home view of at most 100 blocks, and the Home tab enabled", async () => {
		fake = await startFakeSlack({ homeTab: false });
		const call = (params: Record<string, unknown>) =>
			fetch(`${fake.apiUrl}views.publish`, {
				method: "POST",
				headers: { "content-type": "application/json", authorization: "Bearer xoxb-test" },
				body: JSON.stringify(params),
			}).then((r) => r.json() as Promise<{ ok: boolean; error?: string }>);
		const section = { type: "section", text: { type: "mrkdwn", text: "x" } };
		expect(await call({ view: { type: "home", blocks: [section] } })).toMatchObject({
			ok: false,
			error: "invalid_arguments",
		});
		expect(await call({ user_id: "U1", view: { type: "modal", blocks: [section] } })).toMatchObject({
			ok: false,
			error: "invalid_arguments",
		});
		expect(await call({ user_id: "U1", view: { type: "home", blocks: [section] } })).toMatchObject({
			ok: false,
			error: "not_enabled",
		});
		await fake.close();
		fake = await startFakeSlack();
		const many = Array.from({ length: 101 }, () => section);
		expect(await call({ user_id: "U1", view: { type: "home", blocks: many } })).toMatchObject({
			ok: false,
			error: "invalid_arguments",
		});
		expect(await call({ user_id: "U1", view: { type: "home", blocks: many.slice(0, 100) } })).toMatchObject({
			ok: true,
		});
	});
});
