import { describe, expect, it } from "vitest";
import { createDemoModel } from "../../src/agent/models/demo-model.ts";
import type { LearnerEvent, TutorEvent } from "../../src/core/contracts/events.ts";

type Question = Extract<TutorEvent, { type: "quiz" | "ask" }>;
const by = { id: "u1" };

/** Play the demo lesson, typing `typed(question)` for every free-answer quiz and picking the right option elsewhere. */
async function play(typed: (q: Question) => string): Promise<TutorEvent[]> {
	const { createTutor, createSessionStore } = await import("../../src/agent/index.ts");
	const tutor = createTutor({ model: createDemoModel(), store: await createSessionStore("memory://") });
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => void events.push(e));
	const sessionId = "terminal:demo-judged";
	await tutor.startLesson({ sessionId, topic: "binary search", learner: by, mode: "solo" });
	const seen = new Set<string>();
	for (let i = 0; i < 40 && !events.some((e) => e.type === "ended"); i++) {
		await tutor.idle(sessionId);
		const open = events.find((e): e is Question => (e.type === "quiz" || e.type === "ask") && !seen.has(e.toolCallId));
		if (!open) break;
		seen.add(open.toolCallId);
		const event: LearnerEvent =
			open.type === "quiz" && !open.input.options
				? { type: "reply", toolCallId: open.toolCallId, text: typed(open), by }
				: open.type === "quiz"
					? { type: "answer", toolCallId: open.toolCallId, value: open.input.correctAnswer, by }
					: { type: "answer", toolCallId: open.toolCallId, value: 0, by };
		expect(await tutor.handle(sessionId, event)).toEqual({ ok: true });
	}
	await tutor.idle(sessionId);
	await tutor.close();
	return events;
}

const typedAnswers = (events: TutorEvent[]) =>
	events.flatMap((e) =>
		e.type === "answered" && e.kind === "quiz" && e.quiz?.options === undefined ? [e.result] : [],
	);

describe("the demo hears typed answers", () => {
	it("`eight` and `the middle one, 8` are correct, and the demo says so", async () => {
		const events = await play((q) => (q.input.question.includes("worst case") ? "eight" : "the middle one, 8"));
		expect(typedAnswers(events).map((r) => [r.answer, r.correct])).toEqual([
			["eight", true],
			["the middle one, 8", true],
		]);
		const texts = events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("\n");
		expect(texts).toMatch(/Right: the worst case checks every item/);
		expect(texts).toMatch(/8 sits in the middle/);
		expect(events.at(-1)).toMatchObject({ type: "ended", reason: "completed" });
	});

	it("an accepted alternative is correct; words it cannot judge get a neutral reply, not 'wrong'", async () => {
		const events = await play((q) => (q.input.question.includes("worst case") ? "All of them." : "hmm, 4 or 8?"));
		expect(typedAnswers(events)).toEqual([
			{ answer: "All of them.", correct: true, by },
			{ answer: "hmm, 4 or 8?", judged: "unsure", by },
		]);
		const texts = events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("\n");
		expect(texts).toMatch(/can't judge free wording; the answer I had in mind is \*\*8\*\*/);
		expect(texts).not.toMatch(/The first comparison is with the middle item/);
	});
});
