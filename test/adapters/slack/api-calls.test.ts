/**
 * Slack Web API calls per turn, by rate-limit tier. A whole scripted lesson on
 * the fake Slack (real Bolt over HTTP, the real engine), each turn started by
 * a click (a button, or the Answer button's modal), counted by method and tier:
 * chat.update is Tier 3 (about 50 a minute per workspace, shared by every
 * lesson there), chat.postMessage has its own limit (about 1 a second per
 * channel), files.* and views.open are Tier 4. A clicked card is now replaced
 * through the click's response_url, which is no Web API call; before, every
 * click turn made one chat.update. Only the lesson's end still updates its
 * parent message (nobody clicked it) with chat.update.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore, createSessionStore, createTutor } from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import { findControl, type Running, startAdapter, textOf } from "./harness.ts";

const LEARNER = { user: "U1", name: "ada", channel: "C1" };

/** Slack's published tier of each method the adapter calls ("post": chat.postMessage's 1 a second per channel). */
const TIERS: Record<string, string> = {
	"chat.postMessage": "post",
	"chat.update": "tier3",
	"chat.postEphemeral": "tier4",
	"chat.getPermalink": "tier4",
	"views.open": "tier4",
	"users.info": "tier4",
	"files.getUploadURLExternal": "tier4",
	"files.completeUploadExternal": "tier4",
	"conversations.info": "tier3",
	// The status under the thread: "Special rate limits apply" (its reference page); chat streaming: appendStream
	// is Tier 4, stopStream Tier 2, startStream's tier is not published (its own bucket here).
	"assistant.threads.setStatus": "special",
	"chat.startStream": "stream",
	"chat.appendStream": "tier4",
	"chat.stopStream": "tier2",
	// Not Web API methods: no tier.
	upload: "none",
	response_url: "none",
};

/** Calls per tier, and the methods seen. */
function byTier(calls: RecordedCall[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const c of calls) {
		const tier = TIERS[c.method] ?? `unknown:${c.method}`;
		out[tier] = (out[tier] ?? 0) + 1;
	}
	return out;
}

describe("Slack API calls per lesson turn", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let tutor: Tutor;
	let running: Running;
	let sessionId = "";
	const turns: Array<{ name: string; tiers: Record<string, number>; methods: string[] }> = [];

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-calls-"));
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		const model = scriptedModel(
			fractionsLesson({
				greeting: "Hi! A few quick questions first.",
				predictOptions: ["3", "6", "9"],
				closing: "Bye!",
			}),
		);
		tutor = createTutor({ model, store: await createSessionStore(`sqlite://${join(dir, "l.sqlite")}`), maxRetries: 0 });
		const png = PNG.sync.write(new PNG({ width: 4, height: 4 }));
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(png), state: createMemoryStateStore() });
	});
	afterAll(async () => {
		if (process.env.LH_PRINT_CALLS)
			for (const t of turns) console.log(`${t.name}: ${JSON.stringify(t.tiers)} [${t.methods.join(", ")}]`);
		await running?.adapter.stop();
		await tutor?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	const control = (prefix: string) => fake.waitFor(() => findControl(fake, prefix), `a control ${prefix}`, 20_000);
	const replaced = (ts: string) => fake.calls.filter((c) => c.replaced?.ts === ts);

	/** Wait until the fake saw no call for 200 ms (the adapter has no flush; bounded by 5 s). */
	async function quiet(): Promise<void> {
		const deadline = Date.now() + 5_000;
		let seen = -1;
		while (seen !== fake.calls.length && Date.now() < deadline) {
			seen = fake.calls.length;
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/** Run one turn (from `act` until `done`, the tutor idle and every post out) and count its calls. */
	async function turn(name: string, act: () => Promise<unknown>, done: () => Promise<unknown>) {
		const from = fake.calls.length;
		await act();
		await done();
		await tutor.idle(sessionId);
		await quiet();
		const calls = fake.calls.slice(from);
		const counted = { name, tiers: byTier(calls), methods: calls.map((c) => c.method) };
		turns.push(counted);
		return counted;
	}

	/** Click `actionId` on its card; the turn ends once the card was replaced and `next` shows. */
	const click = (actionId: string, next: string) =>
		turn(
			`click ${actionId}`,
			async () => {
				const found = await control(actionId);
				await running.sender.action(LEARNER, found.message.ts, { action_id: found.actionId });
				return found;
			},
			() => control(next),
		);

	/** Open the card's form, submit `text`; the turn ends once `next` shows (or `until` holds). */
	const answer = (toolCallId: string, text: string, until: () => Promise<unknown>) =>
		turn(
			`form ${toolCallId}`,
			async () => {
				const open = await control(`lh:open:${toolCallId}`);
				const before = fake.callsTo("views.open").length;
				await running.sender.action(LEARNER, open.message.ts, { action_id: open.actionId });
				const opened = await fake.waitFor(() => fake.callsTo("views.open")[before], "views.open");
				const id = `lh:text:${toolCallId}`;
				await running.sender.viewSubmission(LEARNER, opened.params.view as Record<string, unknown>, {
					[id]: { [id]: { type: "plain_text_input", value: text } },
				});
				await fake.waitFor(() => replaced(open.message.ts).length > 0, `the answered ${toolCallId}`);
			},
			until,
		);

	it("starts a lesson (the parent message and the first question)", async () => {
		await turn(
			"start",
			() => running.sender.command("/lesson", "start fractions", LEARNER),
			async () => {
				const quiz = await control("lh:pick:p1:");
				sessionId = `slack:${fake.teamId}:C1:${quiz.message.threadTs}`;
			},
		);
	});

	it("replaces every clicked card through its response_url: no chat.update in a click's turn", async () => {
		const p1 = await control("lh:pick:p1:");
		await click("lh:pick:p1:1", "lh:pick:t1:");
		expect(textOf(fake.messages.get(p1.message.ts)!)).toMatch(/correct/);
		const t1 = await control("lh:pick:t1:");
		await click("lh:pick:t1:1", "lh:open:t2");
		expect(textOf(fake.messages.get(t1.message.ts)!)).toMatch(/answered|correct/);
		await answer("t2", "10", () => control("lh:open:t3"));
		await answer("t3", "5/6", () => control("lh:open:recall"));
		for (const t of turns.slice(1)) {
			expect(t.tiers.tier3 ?? 0, t.name).toBe(0);
			expect(
				t.methods.filter((m) => m === "response_url"),
				t.name,
			).toHaveLength(1);
			expect(t.tiers.post ?? 0, t.name).toBeGreaterThan(0);
		}
		expect(fake.limitProblems()).toEqual([]);
	});

	it("ends the lesson: the answered recall through its response_url, the parent message with one chat.update", async () => {
		const last = await answer("recall", "Common denominators", () =>
			fake.waitFor(() => [...fake.messages.values()].some((m) => textOf(m).includes("Bye!")), "the closing line"),
		);
		await fake.waitFor(() => fake.callsTo("chat.update").length > 0, "the parent marked ended");
		expect(last.methods.filter((m) => m === "response_url")).toHaveLength(1);
		expect(fake.callsTo("chat.update").map((c) => c.params.ts)).toEqual([sessionId.split(":").at(-1)]);
		// Every card of the lesson is in the thread.
		const texts = [...fake.messages.values()].map((m) => textOf(m)).join("\n");
		for (const words of [
			"What is 1/2 + 1/4?",
			"Which denominator",
			"Both 3 and 6 divide 6.",
			"1/5",
			"1/2 + 1/3",
			"own words",
		])
			expect(texts).toContain(words);
		expect(fake.uploads.some((u) => u.completed && u.filename === "lesson-plan.png")).toBe(true);
	});
});
