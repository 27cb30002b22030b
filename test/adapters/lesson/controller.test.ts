/**
 * The lesson controller over a recording port: the flows every platform now
 * shares. Each test here pins a behaviour the platforms used to do each in
 * their own way (and differently): which map to post, where the state lives,
 * when the intro goes out, what the answer form's pre-check reads, and the
 * replay of questions saved but not posted.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { refusalFromSummary } from "../../../src/adapters/lesson/answers.ts";
import { createLessonController, type LessonController } from "../../../src/adapters/lesson/controller.ts";
import { createMemoryStateStore, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { PlanTree } from "../../../src/core/contracts/plan.ts";
import type { SessionSummary } from "../../../src/core/contracts/tutor.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "./fake-tutor.ts";
import { type PortCall, recordingActor, recordingPort } from "./recording-port.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-controller-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ada = { id: "U1", name: "ada" };
const bob = { id: "U2", name: "bob" };
const place = { community: "G1", channelId: "C1" };
const tree: PlanTree = { nodes: [{ id: "a", title: "Halves" }], edges: [], version: 1 };

/** A state store that records the keys written. */
function spyStore(inner: StateStore = createMemoryStateStore()): StateStore & { keys: string[] } {
	const keys: string[] = [];
	const set: StateStore["set"] = (key, value, ttl) => {
		keys.push(key);
		return inner.set(key, value, ttl);
	};
	return { ...inner, keys, set };
}

function setup(options: { state?: StateStore; storeUrl?: string } = {}) {
	const tutor = new FakeTutor();
	const log: Array<PortCall | { call: string }> = [];
	const port = recordingPort(log);
	const controller: LessonController = createLessonController({
		tutor,
		renderer: stubRenderer(undefined),
		port,
		logger: silentLogger,
		...(options.storeUrl ? { storeUrl: options.storeUrl } : { state: options.state ?? createMemoryStateStore() }),
	});
	controller.attach();
	return { tutor, log, port, controller };
}

async function startOne(s: ReturnType<typeof setup>, by = ada): Promise<string> {
	const opened = await s.controller.start(recordingActor(by), place, { topic: "fractions" });
	if (!opened.ok) throw new Error(opened.message);
	return opened.threadId;
}

const summaryOf = (s: ReturnType<typeof setup>, threadId: string): SessionSummary => {
	const summary = s.tutor.sessions.get(threadId);
	if (!summary) throw new Error("no session");
	return summary;
};

describe("the lesson controller", () => {
	it("posts the plan at every plan event and keeps no 'last plan' key: the engine owns which map was shown", async () => {
		const state = spyStore();
		const s = setup({ state });
		const threadId = await startOne(s);
		const plan = {
			type: "plan" as const,
			sessionId: threadId,
			tree,
			statuses: { current: "a", visited: new Set<string>() },
		};
		for (let i = 0; i < 2; i++) {
			await s.tutor.emit({ ...plan, reason: "moved" });
			await s.tutor.emit({ type: "typing", sessionId: threadId, active: false });
		}
		// Another platform's lesson is not this port's to show.
		await s.tutor.emit({ type: "text", sessionId: "discord:1:2", text: "not ours" });
		await s.tutor.emit({ type: "typing", sessionId: "discord:1:2", active: false });
		await s.controller.flush();
		expect(s.log.filter((c) => c.call === "postPicture")).toHaveLength(2);
		expect(s.log.filter((c) => c.call === "postCard")).toHaveLength(0);
		expect(state.keys.filter((k) => /plan/i.test(k))).toEqual([]);
		await s.controller.stop();
	});

	it("with no state store passed, opens the store URL's backend (one default for every platform)", async () => {
		const url = `sqlite://${join(dir, "default.sqlite")}`;
		const s = setup({ storeUrl: url });
		const threadId = await startOne(s);
		await s.controller.stop();
		const reopened = openStateStore(url, "rec");
		expect(await reopened.get(`intro:${threadId}`)).toMatchObject({ topic: "fractions", learner: ada, mode: "solo" });
		await reopened.close();
	});

	it("opens the thread with its intro before the tutor starts, so the intro is always the thread's first post", async () => {
		const s = setup();
		const start = s.tutor.startLesson.bind(s.tutor);
		s.tutor.startLesson = async (options) => {
			s.log.push({ call: "tutor.startLesson" });
			const result = await start(options);
			await s.tutor.emit({
				type: "quiz",
				sessionId: options.sessionId,
				toolCallId: "q1",
				input: { question: "1/2 + 1/4?", options: ["3/4", "2/6"], correctAnswer: "3/4" },
			});
			return result;
		};
		await startOne(s);
		await s.controller.flush();
		expect(s.log.map((c) => c.call)).toEqual(["openThread", "tutor.startLesson", "postCard"]);
		// A start the tutor refuses closes the thread again and gives the daily count back.
		s.tutor.startLesson = async () => ({ ok: false, code: "invalid-topic", message: "Name a topic to learn." });
		const actor = recordingActor(ada);
		expect((await s.controller.start(actor, place, { topic: "x" })).ok).toBe(false);
		expect(s.log.at(-1)).toMatchObject({ call: "closeThread", why: "Name a topic to learn." });
		expect(actor.notices).toEqual(["The lesson could not start: Name a topic to learn."]);
		await s.controller.stop();
	});

	it("checks the answer form against the tutor's summary on every platform, and labels it with the pending question", async () => {
		const s = setup();
		const threadId = await startOne(s);
		const summary = summaryOf(s, threadId);
		summary.pending = [{ toolCallId: "a1", kind: "ask", input: { question: "Why halves?" } }];
		const learner = recordingActor(ada);
		await s.controller.openForm(learner, threadId, "a1");
		expect(learner.forms).toEqual([{ threadId, toolCallId: "a1", question: "Why halves?" }]);
		await s.controller.openForm(learner, threadId, "gone");
		expect(learner.notices).toEqual([expect.stringMatching(/no longer open/)]);
		const stranger = recordingActor(bob);
		await s.controller.openForm(stranger, threadId, "a1");
		expect(stranger.forms).toEqual([]);
		expect(stranger.notices).toEqual([expect.stringMatching(/<@U1>'s solo lesson/)]);
		// A tutor too slow for the platform's first-response deadline: the form opens anyway, unlabelled.
		const release = s.tutor.hold();
		const late = recordingActor(ada);
		await s.controller.openForm(late, threadId, "a1");
		release();
		expect(late.forms).toEqual([{ threadId, toolCallId: "a1", question: "" }]);
		await s.controller.stop();
	});

	it("posts a question resume() replays only when no card of it was posted, and keeps the posted ids", async () => {
		const state = createMemoryStateStore();
		const s = setup({ state });
		const threadId = await startOne(s);
		const quiz = (id: string, replay?: boolean) => ({
			type: "quiz" as const,
			sessionId: threadId,
			toolCallId: id,
			input: { question: `${id}?`, options: ["a", "b"], correctAnswer: "a" },
			...(replay ? { replay } : {}),
		});
		await s.tutor.emit(quiz("q1"));
		await s.controller.flush();
		expect(s.tutor.postedCard(threadId, "q1")).toEqual({ messageIds: ["m1"] });
		await s.tutor.emit(quiz("q1", true));
		await s.tutor.emit(quiz("q2", true));
		await s.controller.flush();
		const posted = s.log.filter((c): c is Extract<PortCall, { call: "postCard" }> => c.call === "postCard");
		expect(posted.map((c) => (c.card.kind === "question" ? c.card.toolCallId : c.card.kind))).toEqual(["q1", "q2"]);
		expect(s.tutor.postedCard(threadId, "q2")).toEqual({ messageIds: ["m2"] });
		// The engine keeps where cards are: no card or claim key in the state store.
		expect(await state.get(`card:${threadId}:q1`)).toBeUndefined();
		expect(await state.get(`posting:${threadId}:q1`)).toBeUndefined();
		// The answer edits the posted card (the one the replay did not duplicate).
		await s.tutor.emit({
			type: "answered",
			sessionId: threadId,
			toolCallId: "q1",
			kind: "quiz",
			result: { answer: "a", correct: true, by: ada },
		});
		await s.controller.flush();
		expect(s.log.at(-1)).toMatchObject({ call: "editCard", messageIds: ["m1"] });
		await s.controller.stop();
	});

	it("shows the engine's message for a refusal it has no words for, and answers status when the store fails", async () => {
		const s = setup();
		const threadId = await startOne(s);
		s.tutor.verdict = { ok: false, code: "store-unavailable", message: "The lesson could not be saved; try again." };
		const actor = recordingActor(ada);
		await s.controller.choose(actor, threadId, "q1", 0);
		expect(actor.notices).toEqual(["The lesson could not be saved; try again."]);
		s.tutor.getSession = async () => {
			throw new Error("redis is down");
		};
		expect(await s.controller.status(actor, threadId)).toBeUndefined();
		expect(actor.notices.at(-1)).toMatch(/could not be read right now/);
		await s.controller.stop();
	});

	it("applies the community's rules and daily limit to every start, admins exempt", async () => {
		const s = setup();
		const admin = recordingActor({ id: "A1" }, true);
		const rules = await s.controller.config(admin, place.community, { lessonsPerDay: 1, allowChannel: "C1" });
		expect(rules).toMatchObject({ saved: true, rules: { lessonsPerDay: 1, channels: ["C1"] } });
		expect(await s.controller.config(recordingActor(ada), place.community, { lessonsPerDay: 5 })).toBeUndefined();
		await startOne(s);
		const again = recordingActor(ada);
		expect((await s.controller.start(again, place, { topic: "more" })).ok).toBe(false);
		expect(again.notices[0]).toMatch(/already started 1 lesson today/);
		const elsewhere = recordingActor(bob);
		expect((await s.controller.start(elsewhere, { ...place, channelId: "C2" }, { topic: "x" })).ok).toBe(false);
		expect(elsewhere.notices[0]).toMatch(/can't run in this channel/);
		expect((await s.controller.start(admin, place, { topic: "for ada", learner: ada })).ok).toBe(true);
		await s.controller.stop();
	});

	it("decides the form from the tutor's view of the session", () => {
		const view = (over: Partial<SessionSummary> = {}): SessionSummary => ({
			sessionId: "rec:t",
			topic: "t",
			learner: ada,
			mode: "solo",
			phase: "probe",
			createdAt: new Date(0).toISOString(),
			pending: [{ toolCallId: "q1", kind: "quiz" }],
			probeQuestions: 1,
			messageCount: 1,
			usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
			...over,
		});
		expect(refusalFromSummary(undefined, "q1", "U1")).toBe("unknown-session");
		expect(refusalFromSummary(view({ phase: "ended" }), "q1", "U1")).toBe("ended");
		expect(refusalFromSummary(view(), "q9", "U1")).toBe("not-pending");
		expect(refusalFromSummary(view(), "q1", "U2")).toBe("not-allowed");
		expect(refusalFromSummary(view({ mode: "group" }), "q1", "U2")).toBeUndefined();
		expect(refusalFromSummary(view(), "q1", "U1")).toBeUndefined();
	});

	it("survives a plan picture that cannot be drawn: logged, and the thread's next posts still go out", async () => {
		const tutor = new FakeTutor();
		const log: Array<PortCall | { call: string }> = [];
		const errors: unknown[] = [];
		const controller = createLessonController({
			tutor,
			renderer: {
				renderPlan: async () => {
					throw new Error("no browser");
				},
			},
			port: recordingPort(log),
			logger: { ...silentLogger, error: (fields) => void errors.push(fields.err) },
			state: createMemoryStateStore(),
		});
		controller.attach();
		const threadId = "rec:t9";
		const plan = {
			type: "plan" as const,
			sessionId: threadId,
			tree,
			statuses: { current: "a", visited: new Set<string>() },
		};
		await tutor.emit({ ...plan, reason: "init" });
		await tutor.emit({ type: "text", sessionId: threadId, text: "Still here." });
		await tutor.emit({ type: "typing", sessionId: threadId, active: false });
		await controller.flush();
		expect(String(errors[0])).toMatch(/no browser/);
		expect(log.map((c) => c.call)).toEqual(["postCard"]);
		await controller.stop();
	});
});
