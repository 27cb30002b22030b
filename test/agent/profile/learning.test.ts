import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { createLearning } from "../../../src/agent/profile/learning.ts";
import { learnerKeyOf, lessonFacts } from "../../../src/agent/profile/lesson-facts.ts";
import { sessionStoreOnKeyv } from "../../../src/agent/store/session-store.ts";
import { createMemoryStateStore } from "../../../src/agent/store/state-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { fractionsRecord } from "../../fixtures/profile-lesson.ts";

const DAY = 86_400_000;

/** A learning service on memory stores with a clock the test moves. */
function setup() {
	let t = Date.parse("2026-03-01T11:00:00.000Z");
	const now = () => new Date(t);
	const sessions = sessionStoreOnKeyv(new Keyv());
	const learning = createLearning({ state: createMemoryStateStore(() => t), sessions, now });
	return { learning, sessions, now, advance: (ms: number) => (t += ms) };
}

describe("lesson facts", () => {
	it("counts answered and first-try quizzes, derives node mastery, names misconceptions and seeds checked nodes", () => {
		const facts = lessonFacts(fractionsRecord({ sessionId: "discord:g1:t1", learnerId: "u1" }));
		expect(facts.community).toBe("g1");
		expect(facts.outcome).toBe("completed");
		expect(facts.questionsAnswered).toBe(5);
		expect(facts.firstTryCorrect).toBe(2);
		expect(facts.nodes.map((n) => `${n.id}:${n.mastery}`)).toEqual(["common:learned", "unlike:shaky", "mixed:not-yet"]);
		expect(facts.misconceptions[0]).toMatch(/add the denominators/);
		expect(facts.seeds.map((s) => [s.nodeId, s.mastery, s.correctAnswer])).toEqual([
			["common", "learned", "6"],
			["unlike", "shaky", "5/6"],
		]);
	});

	it("keys Slack learners per team and Discord learners globally", () => {
		expect(learnerKeyOf("slack:T1:C1:1.2", { id: "U1" })).toBe("slack:T1:U1");
		expect(learnerKeyOf("discord:g1:t1", { id: "42" })).toBe("discord:42");
		expect(learnerKeyOf("terminal:abc", { id: "me" })).toBe("terminal:me");
	});
});

describe("review scheduling with FSRS", () => {
	it("makes the missed node due the next day, grows the interval on success and shrinks it on a miss", async () => {
		const { learning, advance } = setup();
		await learning.recordLesson(fractionsRecord({ sessionId: "discord:g1:t1", learnerId: "u1" }));
		await learning.recordLesson(fractionsRecord({ sessionId: "discord:g1:t1", learnerId: "u1" })); // idempotent
		expect((await learning.due("discord:u1")).dueCount).toBe(0);
		advance(DAY);
		const next = await learning.due("discord:u1");
		expect(next.items.map((i) => i.nodeId)).toEqual(["unlike"]);
		expect(next.total).toBe(2);
		const shaky = next.items[0];
		if (!shaky) throw new Error("no due item");
		// The quiz's explanation is kept with its item: a missed review says why with it.
		expect(shaky.explanation).toBe("Over the common denominator 6: 3/6 + 2/6 = 5/6.");
		const after = await learning.grade("discord:u1", shaky.id, "good");
		expect(after?.card.scheduledDays).toBeGreaterThan(shaky.card.scheduledDays);

		advance(3 * DAY);
		const learned = (await learning.due("discord:u1")).items.find((i) => i.nodeId === "common");
		if (!learned) throw new Error("the learned node is not due after three days");
		const grown = await learning.grade("discord:u1", learned.id, "good");
		expect(grown?.card.scheduledDays).toBeGreaterThan(learned.card.scheduledDays);
		advance((grown?.card.scheduledDays ?? 0) * DAY);
		const missed = await learning.grade("discord:u1", learned.id, "again");
		expect(missed?.card.scheduledDays).toBeLessThan(grown?.card.scheduledDays ?? 0);
		const profile = await learning.profile("discord:u1");
		expect(profile?.reviewsDone).toBe(3);
		expect(profile?.lessons[0]?.reviews).toBe(3);
	});
});

describe("the prober's note", () => {
	it("names what a related earlier lesson taught, and nothing for an unrelated topic", async () => {
		const { learning } = setup();
		await learning.recordLesson(fractionsRecord({ sessionId: "discord:g1:t1", learnerId: "u1" }));
		const note = await learning.priorNote("discord:g2:t9", { id: "u1" }, "subtracting fractions");
		expect(note).toContain("learned Common denominators");
		expect(note).toContain("shaky Unlike denominators");
		expect(note).toMatch(/skipping it/);
		expect(await learning.priorNote("discord:g2:t9", { id: "u1" }, "photosynthesis")).toBeUndefined();
		expect(await learning.priorNote("discord:g2:t9", { id: "someone-else" }, "fractions")).toBeUndefined();
	});

	it("reaches the prober: the lesson's start note carries it", async () => {
		const sessions = sessionStoreOnKeyv(new Keyv());
		const model = scriptedModel([{ text: "Hello!" }]);
		const tutor = createTutor({
			model,
			store: sessions,
			recall: async (_id, _learner, topic) => `Earlier: ${topic} basics learned`,
		});
		expect(
			await tutor.startLesson({ sessionId: "terminal:x", topic: "fractions", learner: { id: "me" }, mode: "solo" }),
		).toEqual({ ok: true });
		await tutor.idle("terminal:x");
		const first = (await sessions.get("terminal:x"))?.messages[0]?.parts[0];
		expect(first?.type === "text" && first.text).toContain("Earlier: fractions basics learned");
		await tutor.close();
	});

	it("starts the lesson without a note when the profile cannot be read", async () => {
		const sessions = sessionStoreOnKeyv(new Keyv());
		const tutor = createTutor({
			model: scriptedModel([{ text: "Hello!" }]),
			store: sessions,
			recall: async () => {
				throw new Error("store down");
			},
		});
		expect(
			await tutor.startLesson({ sessionId: "terminal:y", topic: "fractions", learner: { id: "me" }, mode: "solo" }),
		).toEqual({ ok: true });
		await tutor.idle("terminal:y");
		await tutor.close();
	});
});

describe("report and forget-me", () => {
	it("reports numbers per member and lesson, and forget-me leaves no key of the learner", async () => {
		const map = new Map<string, unknown>();
		const sessionsKeyv = new Keyv({ store: map, namespace: "learnharness:sessions" });
		const stateMap = new Map<string, unknown>();
		const { stateStoreOnKeyv } = await import("../../../src/agent/store/state-store.ts");
		const state = stateStoreOnKeyv(new Keyv({ store: stateMap, namespace: "learnharness:profiles" }));
		const sessions = sessionStoreOnKeyv(sessionsKeyv);
		const learning = createLearning({ state, sessions, now: () => new Date("2026-03-02T00:00:00.000Z") });
		for (const [id, user] of [
			["discord:g1:t1", "u1"],
			["discord:g1:t2", "u2"],
			["discord:g2:t3", "u1"],
		] as const) {
			const record = fractionsRecord({ sessionId: id, learnerId: user });
			await sessions.set(record);
			await learning.notePlace(id, record.learner, `${id.split(":")[1]}:c1`);
			await learning.recordLesson(record);
		}
		await learning.setReminders("discord:u1", true, "dm");
		const rows = await learning.report("g1");
		expect(rows.map((r) => [r.member, r.questionsAnswered, r.firstTryAccuracy, r.nodesLearned])).toEqual([
			["u1", 5, 0.4, 1],
			["u2", 5, 0.4, 1],
		]);
		expect(await learning.forget("discord:u1")).toEqual({
			sessions: ["discord:g1:t1", "discord:g2:t3"],
			reviewThreads: [],
		});
		const everything = [...map.entries(), ...stateMap.entries()].map(([k, v]) => `${k} ${JSON.stringify(v)}`);
		expect(everything.length).toBeGreaterThan(0);
		expect(everything.filter((line) => /\\"u1\\"|discord:u1|g1:t1|g2:t3/.test(line))).toEqual([]);
		expect((await learning.report("g1")).map((r) => r.member)).toEqual(["u2"]);
	});
});

describe("retention", () => {
	it("deletes lessons past their server's retention: transcript, profile entry and review items", async () => {
		const { learning, sessions, advance } = setup();
		const record = fractionsRecord({ sessionId: "discord:g1:t1", learnerId: "u1" });
		await sessions.set(record);
		await learning.recordLesson(record);
		expect(await learning.retention("g1")).toBe(365);
		expect(await learning.setRetention("g1", 30)).toBe(30);
		advance(20 * DAY);
		expect(await learning.sweep()).toBe(0);
		advance(20 * DAY);
		expect(await learning.sweep()).toBe(1);
		expect(await sessions.get("discord:g1:t1")).toBeUndefined();
		expect((await learning.profile("discord:u1"))?.lessons).toEqual([]);
		expect(await learning.items("discord:u1")).toEqual([]);
		expect(await learning.report("g1")).toEqual([]);
	});

	it("takes its default from defaultRetentionDays (LEARNHARNESS_RETENTION_DAYS); a server's own setting wins", async () => {
		const learning = createLearning({
			state: createMemoryStateStore(),
			sessions: sessionStoreOnKeyv(new Keyv()),
			defaultRetentionDays: 30,
		});
		expect(await learning.retention("g1")).toBe(30);
		await learning.setRetention("g1", 7);
		expect(await learning.retention("g1")).toBe(7);
		expect(await learning.retention("g2")).toBe(30);
	});
});
