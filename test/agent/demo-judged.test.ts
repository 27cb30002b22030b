import { describe, expect, it } from "vitest";
import { createDemoModel } from "../../src/agent/models/demo-model.ts";
import type { LearnerEvent, TutorEvent } from "../../src/core/contracts/events.ts";
import { REVEALED_NOTE } from "../../src/core/struggle.ts";

type Question = Extract<TutorEvent, { type: "quiz" | "ask" }>;
const by = { id: "u1" };

/**
 * Play the demo lesson, typing `typed(question)` for every free-answer quiz (and ask), and picking an option
 * elsewhere: `pick(question)` when it returns one, else the right one.
 */
async function play(
	typed: (q: Question) => string,
	pick: (q: Extract<Question, { type: "quiz" }>) => string | { typed: string } | undefined = () => undefined,
	language?: "de",
): Promise<TutorEvent[]> {
	const { createTutor, createSessionStore } = await import("../../src/agent/index.ts");
	const tutor = createTutor({ model: createDemoModel(), store: await createSessionStore("memory://") });
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => void events.push(e));
	const sessionId = "terminal:demo-judged";
	await tutor.startLesson({
		sessionId,
		topic: "binary search",
		learner: by,
		mode: "solo",
		...(language ? { language } : {}),
	});
	const seen = new Set<string>();
	for (let i = 0; i < 40 && !events.some((e) => e.type === "ended"); i++) {
		await tutor.idle(sessionId);
		// A missed check stays open ("Not quite"): the learner answers it once more, the same way.
		const missed = events.findLast(
			(e): e is Extract<TutorEvent, { type: "attempt" }> => e.type === "attempt" && !seen.has(`again:${e.toolCallId}`),
		);
		const retry = missed && events.find((e): e is Question => e.type === "quiz" && e.toolCallId === missed.toolCallId);
		if (missed) seen.add(`again:${missed.toolCallId}`);
		const open =
			retry ?? events.find((e): e is Question => (e.type === "quiz" || e.type === "ask") && !seen.has(e.toolCallId));
		if (!open) break;
		seen.add(open.toolCallId);
		const picked = open.type === "quiz" ? pick(open) : undefined;
		const event: LearnerEvent =
			typeof picked === "object"
				? { type: "reply", toolCallId: open.toolCallId, text: picked.typed, by }
				: (open.type === "quiz" && !open.input.options) || (open.type === "ask" && !open.input.options)
					? { type: "reply", toolCallId: open.toolCallId, text: typed(open), by }
					: open.type === "quiz"
						? { type: "answer", toolCallId: open.toolCallId, value: picked ?? open.input.correctAnswer, by }
						: { type: "answer", toolCallId: open.toolCallId, value: 0, by };
		expect(await tutor.handle(sessionId, event)).toEqual({ ok: true });
	}
	await tutor.idle(sessionId);
	await tutor.close();
	return events;
}

/** The final results of typed answers (a "checking" state while the grader reads the words is not one). */
const typedAnswers = (events: TutorEvent[]) =>
	events.flatMap((e) =>
		e.type === "answered" && e.kind === "quiz" && e.quiz?.options === undefined && e.checking !== true
			? [e.result]
			: [],
	);
const textsOf = (events: TutorEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("\n");
const mapOf = (events: TutorEvent[]) => {
	const plan = events.find((e) => e.type === "plan");
	return plan?.type === "plan" ? plan.tree.nodes.map((n) => n.id) : [];
};

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

	it("an accepted alternative is correct; words the judge cannot decide go to the demo's grader", async () => {
		const events = await play((q) => (q.input.question.includes("worst case") ? "All of them." : "hmm, 4 or 8?"));
		const hedge = "Hedges between 2 values instead of committing.";
		expect(typedAnswers(events)).toEqual([
			{ answer: "All of them.", correct: true, by },
			// A check the grader marks wrong gets its second try like any miss; the second miss shows the answer.
			{
				answer: "hmm, 4 or 8?",
				correct: false,
				judged: "grader",
				reason: hedge,
				attempts: [{ answer: "hmm, 4 or 8?", correct: false }],
				revealed: true,
				note: REVEALED_NOTE,
				by,
			},
		]);
		// The card showed "checking" first, then "not quite" (the second try), "checking" again, then the verdict.
		const hmm = events.find(
			(e): e is Extract<TutorEvent, { type: "answered" }> =>
				e.type === "answered" && e.result.answer === "hmm, 4 or 8?",
		);
		const states = events.flatMap((e) =>
			(e.type === "answered" || e.type === "attempt") && e.toolCallId === hmm?.toolCallId
				? [e.type === "attempt" ? e.state : e.checking === true ? "checking" : "verdict"]
				: [],
		);
		expect(states).toEqual(["checking", "missed", "checking", "verdict"]);
		const texts = textsOf(events);
		expect(texts).toContain(`I read your answer this way: ${hedge} The first comparison is with the middle item`);
	});

	it("in a German lesson the demo grader gives its reason in German (it shows on the German card)", async () => {
		const events = await play(
			(q) => (q.input.question.includes("worst case") ? "All of them." : "hmm, 4 or 8?"),
			() => undefined,
			"de",
		);
		expect(typedAnswers(events)[1]).toMatchObject({
			correct: false,
			judged: "grader",
			reason: "Schwankt zwischen 2 Werten, statt sich festzulegen.",
		});
	});

	it("a typo of the number word is read as the number by the grader", async () => {
		const events = await play((q) => (q.input.question.includes("worst case") ? "eigth" : "8"));
		expect(typedAnswers(events)[0]).toEqual({
			answer: "eigth",
			correct: true,
			judged: "grader",
			reason: '"eigth" reads as "eight", a typo: 8.',
			by,
		});
	});
});

describe("the demo adapts to the probe", () => {
	it("a learner who shows the basics gets a smaller map than one who does not", async () => {
		const strong = await play(() => "8");
		const weak = await play(
			() => "3",
			(q) => q.input.options?.find((o) => o !== q.input.correctAnswer),
		);
		expect(mapOf(strong)).toEqual(["check-middle", "shrink-range", "count-steps"]);
		expect(mapOf(weak)).toEqual(["sorted-input", "check-middle", "shrink-range", "count-steps"]);
		expect(textsOf(strong)).toMatch(/You have the basics, so the map skips them/);
		expect(strong.at(-1)).toMatchObject({ type: "ended", reason: "completed" });
		expect(weak.at(-1)).toMatchObject({ type: "ended", reason: "completed" });
	});

	it("'no idea' to the halving question is Not sure: not known, and the assessment says so", async () => {
		const events = await play(
			(q) => (q.type === "ask" ? "Compare with the middle and halve the range." : "8"),
			(q) => (q.input.question.includes("halvings") ? { typed: "no idea" } : undefined),
		);
		const halving = events.find(
			(e) => e.type === "answered" && e.kind === "quiz" && e.quiz?.question.includes("halvings"),
		);
		expect(halving).toMatchObject({ result: { answer: "no idea", correct: false, notSure: true } });
		const assessment = events.find((e) => e.type === "assessment");
		expect(JSON.stringify(assessment)).toMatch(/Not sure how many halvings/);
		expect(textsOf(events)).toMatch(/knowing what you don't know yet helps/);
	});

	it("asks the learner to recall what they learned before the recap, and answers their words", async () => {
		const events = await play((q) => (q.type === "ask" ? "You halve the range each time." : "8"));
		const recall = events.findIndex((e) => e.type === "ask");
		const recap = events.findIndex((e) => e.type === "explain" && e.input.role === "recap");
		expect(recall).toBeGreaterThan(0);
		expect(recap).toBeGreaterThan(recall);
		expect(textsOf(events)).toContain('Thanks: "You halve the range each time". Here is how');
	});
});
