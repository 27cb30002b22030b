/**
 * The pedagogy evaluation measures what it says on a lesson whose numbers are known: the demo
 * lesson probes with three questions, maps four nodes for a novice and three for a learner who
 * shows the basics, and both personas' answers are judged as they meant them (the novice's typed
 * "I don't know" counts as not known).
 */
import { afterAll, expect, it } from "vitest";
import { PERSONAS } from "../../bench/pedagogy/personas.ts";
import { runPersona } from "../../bench/pedagogy/run.ts";
import { createLanguageModel } from "../../src/agent/models/index.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import { tempDir } from "../agent/helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

it("measures probe length, plan coverage, question share and judged agreement on the demo", async () => {
	const store = await createSessionStore(`sqlite://${dir.path}/eval.sqlite`);
	const tutor = createTutor({ model: createLanguageModel({ model: "demo" }), store, maxRetries: 0 });
	const persona = (name: string) => PERSONAS.find((p) => p.name === name)!;
	const sentences = await runPersona(tutor, store, persona("sentences"), "binary search", "terminal:eval-sentences");
	const novice = await runPersona(tutor, store, persona("novice"), "binary search", "terminal:eval-novice");
	await tutor.close();
	for (const r of [sentences, novice]) {
		expect(r.ended).toBe(true);
		expect(r.probeQuestions).toBe(3);
		expect(r.nodesSkipped).toBe(0);
		expect(r.questionTurnShare).toBeGreaterThan(0.5);
		expect(r.revealedBeforeAttempt).toBe(0);
		expect(r.gradedAnswers).toBeGreaterThan(3);
	}
	// The demo adapts: the sentences persona showed the basics, so its map skips them.
	expect(novice.planNodes).toBe(4);
	expect(sentences.planNodes).toBe(3);
	expect(sentences.judgedAgreement).toBe(1);
	// Clicked wrong options are judged wrong, and "I don't know" typed to a free question is not known.
	expect(novice.unsure).toBe(0);
	expect(novice.judgedAgreement).toBe(1);
});
