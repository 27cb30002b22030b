/**
 * Recorded Slack interactivity payloads and slash commands (testkit/fixtures/recorded/slack/interactions and
 * commands), signed and POSTed to Bolt's HTTP receiver (form-encoded, as Slack sends them), one fresh adapter
 * each. A click or a modal recorded on another app's card is pointed at a card of a lesson in the recorded
 * thread (its control's id, the card's ts, a response_url on the fake Slack) and must reach the lesson; one left
 * as recorded (another app's button, a view_closed, another app's modal) is acknowledged at once and dropped.
 * A recorded slash command sent as `/lesson` gets its reply privately through its response_url.
 */

import { afterEach, describe, expect, it } from "vitest";
import { encodeModalMetadata } from "../../src/adapters/slack/controls.ts";
import { encodeSlackThreadId } from "../../src/adapters/slack/thread-id.ts";
import { createMemoryStateStore } from "../../src/agent/index.ts";
import type { LearnerEvent } from "../../src/core/contracts/events.ts";
import { type FakeMessage, type FakeSlack, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { FakeTutor } from "../adapters/lesson/fake-tutor.ts";
import { type Running, startAdapter } from "../adapters/slack/harness.ts";
import { changedPaths, entriesOf, listedAdaptations, type RecordedEntry, readObject } from "./payloads.ts";

type Json = Record<string, unknown>;

/** What a replay needs: the fake, the adapter's sender, the tutor, and the lesson of the recorded thread. */
interface Stage {
	fake: FakeSlack;
	running: Running;
	tutor: FakeTutor;
}

/** How a payload is pointed at the lesson (nothing: sent as recorded), and what must follow. */
interface InteractionCase {
	route?: (payload: Json, stage: Stage) => Promise<void>;
	expect: (r: { status: number; body: string; stage: Stage; handled: LearnerEvent[] }) => void | Promise<void>;
}

const obj = (v: unknown): Json => {
	if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
	return v as Json;
};
const list = (v: unknown): Json[] => {
	if (!Array.isArray(v)) throw new Error("not a list");
	return v.map(obj);
};

/** A lesson in the thread a click was recorded in (its team, channel and thread), with one question card in it. */
async function lessonWithCard(
	payload: Json,
	stage: Stage,
	question: { toolCallId: string; options?: string[] },
): Promise<{ sessionId: string; card: FakeMessage }> {
	const container = obj(payload.container);
	const teamId = String(obj(payload.team).id);
	const sessionId = encodeSlackThreadId({
		teamId,
		channelId: String(container.channel_id),
		threadTs: String(container.thread_ts),
	});
	const learner = { id: String(obj(payload.user).id) };
	await stage.tutor.startLesson({ sessionId, topic: "recorded", learner, mode: "solo" });
	// The question is open in the tutor's summary (the answer form opens only for an open question).
	const summary = stage.tutor.sessions.get(sessionId);
	if (summary)
		summary.pending = [
			question.options
				? { toolCallId: question.toolCallId, kind: "quiz" }
				: { toolCallId: question.toolCallId, kind: "ask", input: { question: "Why do you think so?" } },
		];
	await stage.tutor.emit(
		question.options
			? {
					type: "quiz",
					sessionId,
					toolCallId: question.toolCallId,
					input: { question: "Which one?", options: question.options, correctAnswer: question.options[0] ?? "" },
				}
			: { type: "ask", sessionId, toolCallId: question.toolCallId, input: { question: "Why do you think so?" } },
	);
	const card = await stage.fake.waitFor(
		() => [...stage.fake.messages.values()].find((m) => m.threadTs === container.thread_ts),
		"the question card in the recorded thread",
	);
	return { sessionId, card };
}

/** The controls of a card: every element of its actions blocks. */
const controlsOf = (card: FakeMessage): Json[] =>
	list(card.blocks ?? [])
		.filter((b) => b.type === "actions")
		.flatMap((b) => list(b.elements));

/** Point a recorded click at `card` (its ts, and a response_url the fake answers for it). */
function clickOn(payload: Json, card: FakeMessage, stage: Stage): void {
	obj(payload.container).message_ts = card.ts;
	obj(payload.message).ts = card.ts;
	payload.response_url = `${stage.fake.baseUrl}/respond/recorded?channel=${card.channel}&ts=${card.ts}`;
}

/** Acknowledged at once and dropped: a 200, nothing reached the tutor, no Web API call. */
function droppedAtOnce(r: { status: number; stage: Stage; handled: LearnerEvent[] }): void {
	expect(r.status).toBe(200);
	expect(r.handled).toEqual([]);
	expect(r.stage.fake.calls.filter((c) => c.method !== "auth.test")).toEqual([]);
}

/** The private reply of a slash command: sent through its response_url, visible to its sender only. */
async function privateReply(stage: Stage): Promise<Json> {
	const call = await stage.fake.waitFor(() => stage.fake.callsTo("response_url")[0], "the command's reply");
	expect(call.params.response_type ?? "ephemeral").toBe("ephemeral");
	return call.params;
}

const CASES: Record<string, InteractionCase> = {
	"slack/interactions/block-actions-button-in-thread.json": {
		route: async (payload, stage) => {
			const { card } = await lessonWithCard(payload, stage, { toolCallId: "q1", options: ["a half", "a third"] });
			const action = list(payload.actions)[0]!;
			action.action_id = String(controlsOf(card)[1]?.action_id);
			clickOn(payload, card, stage);
		},
		expect: ({ status, handled }) => {
			// Acknowledged once the tutor has the answer (the second button: index 1), as the clicker (named).
			expect(status).toBe(200);
			expect(handled).toEqual([
				{ type: "answer", toolCallId: "q1", value: 1, by: { id: "U00FAKEUSER1", name: "testuser" } },
			]);
		},
	},
	"slack/interactions/block-actions-static-select.json": {
		route: async (payload, stage) => {
			const options = ["1", "2", "3", "4", "5", "6", "7"];
			const { card } = await lessonWithCard(payload, stage, { toolCallId: "q2", options });
			const select = controlsOf(card).find((c) => c.type === "static_select");
			const action = list(payload.actions)[0]!;
			action.action_id = String(select?.action_id);
			obj(action.selected_option).value = String(list(select?.options)[2]?.value);
			clickOn(payload, card, stage);
		},
		expect: ({ status, handled }) => {
			expect(status).toBe(200);
			expect(handled).toEqual([
				{ type: "answer", toolCallId: "q2", value: 2, by: { id: "U00FAKEUSER1", name: "testuser" } },
			]);
		},
	},
	"slack/interactions/block-actions-open-modal.json": {
		route: async (payload, stage) => {
			const { card } = await lessonWithCard(payload, stage, { toolCallId: "a1" });
			list(payload.actions)[0]!.action_id = String(controlsOf(card)[0]?.action_id);
			clickOn(payload, card, stage);
			payload.trigger_id = stage.running.sender.newTrigger(); // the fake's views.open knows only triggers it issued
		},
		expect: async ({ status, stage }) => {
			expect(status).toBe(200);
			const open = await stage.fake.waitFor(() => stage.fake.callsTo("views.open")[0], "the answer form");
			expect(open.ok).toBe(true);
			expect(obj(open.params.view).callback_id).toBe("lh:modal:a1");
		},
	},
	"slack/interactions/view-submission-feedback.json": {
		route: async (payload, stage) => {
			const teamId = String(obj(payload.team).id);
			const sessionId = encodeSlackThreadId({ teamId, channelId: "C00FAKECHAN2", threadTs: "1769220155.940449" });
			await stage.tutor.startLesson({ sessionId, topic: "recorded", learner: { id: "U00FAKEUSER2" }, mode: "solo" });
			const view = obj(payload.view);
			view.callback_id = "lh:modal:a1";
			view.private_metadata = encodeModalMetadata({ sessionId, toolCallId: "a1" });
			// The typed text stays as recorded; only the ids of its block and input are the answer form's.
			const values = obj(obj(view.state).values);
			obj(view.state).values = { "lh:text:a1": { "lh:text:a1": obj(values.message).message } };
		},
		expect: ({ status, handled }) => {
			expect(status).toBe(200);
			expect(handled).toEqual([
				{ type: "reply", toolCallId: "a1", text: "Hello!", by: { id: "U00FAKEUSER2", name: "jane.smith" } },
			]);
		},
	},
	// Recorded as they are: another app's controls and views, answered at once (Bolt alone would answer 404 after 3 s).
	"slack/interactions/block-actions-button-info.json": { expect: droppedAtOnce },
	"slack/interactions/block-actions-ephemeral-button.json": { expect: droppedAtOnce },
	"slack/interactions/view-closed.json": { expect: droppedAtOnce },
	"slack/interactions/view-submission-ephemeral.json": { expect: droppedAtOnce },
	"slack/interactions/view-submission-from-command.json": { expect: droppedAtOnce },
	// Slash commands, sent as `/lesson` with their recorded text: help, privately (an unknown word is not an error).
	"slack/commands/slash-command-no-text.json": {
		route: async (payload, stage) => {
			payload.command = "/lesson";
			payload.response_url = `${stage.fake.baseUrl}/respond/recorded`;
		},
		expect: async ({ status, stage }) => {
			expect(status).toBe(200);
			expect(String((await privateReply(stage)).text)).toMatch(/\/lesson start/);
		},
	},
	"slack/commands/slash-command-with-text.json": {
		route: async (payload, stage) => {
			payload.command = "/lesson";
			payload.response_url = `${stage.fake.baseUrl}/respond/recorded`;
		},
		expect: async ({ status, stage, handled }) => {
			expect(status).toBe(200);
			expect(String((await privateReply(stage)).text)).toMatch(/\/lesson start/);
			expect(handled).toEqual([]);
		},
	},
	"slack/commands/slash-command-enterprise.json": {
		route: async (payload, stage) => {
			payload.command = "/lesson";
			payload.response_url = `${stage.fake.baseUrl}/respond/recorded`;
		},
		expect: async ({ status, stage }) => {
			expect(status).toBe(200);
			expect(String((await privateReply(stage)).text)).toMatch(/\/lesson start/);
		},
	},
};

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
	await stop?.();
	stop = undefined;
});

async function replay(entry: RecordedEntry, c: InteractionCase) {
	const fake = await startFakeSlack();
	const tutor = new FakeTutor();
	let running: Running | undefined;
	stop = async () => {
		await running?.adapter.stop();
		await fake.close();
	};
	running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() });
	const stage: Stage = { fake, running, tutor };
	const original = readObject(entry.file);
	const payload = structuredClone(original);
	await c.route?.(payload, stage);
	expect(changedPaths(original, payload).sort()).toEqual(listedAdaptations(entry));
	const handledBefore = tutor.handled.length;
	const callsBefore = fake.calls.length;
	// A slash command is its fields, form-encoded; an interactive payload is JSON in the form field `payload`.
	const form =
		entry.kind === "slack-command"
			? new URLSearchParams(Object.entries(payload).map(([k, v]) => [k, String(v)]))
			: new URLSearchParams({ payload: JSON.stringify(payload) });
	fake.calls.splice(0, callsBefore); // what the setting up called is not the replay's
	const res = await running.sender.raw(form.toString(), "application/x-www-form-urlencoded");
	return { status: res.status, body: res.text, stage, handled: tutor.handled.slice(handledBefore).map((h) => h.event) };
}

describe("recorded Slack interactions and slash commands, replayed through Bolt's HTTP receiver", {
	timeout: 20_000,
}, () => {
	const entries = entriesOf("slack-interactive", "slack-command");

	it.each(entries.map((e) => [e.file, e] as const))("%s", async (file, entry) => {
		const c = CASES[file];
		if (!c) throw new Error(`no expectation for ${file}`);
		await c.expect(await replay(entry, c));
	});

	it("has an expectation for every recorded interaction and command and no other", () => {
		expect(Object.keys(CASES).sort()).toEqual(entries.map((e) => e.file).sort());
	});
});
