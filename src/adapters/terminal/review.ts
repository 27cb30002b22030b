/**
 * `learnharness review` in the terminal: the same review flow as `/lesson
 * review` on Discord and Slack (src/adapters/lesson/review.ts), through the
 * terminal port: the due questions one at a time, one typed answer a line,
 * each judged (the judge, then the grader for what it leaves open) and
 * rescheduled, then the closing line. Bounded: at most REVIEW_MAX_ITEMS
 * answers are graded, and twice as many lines read.
 */

import type { Writable } from "node:stream";
import { createMemoryStateStore, stateKeys } from "../../agent/index.ts";
import type { Participant } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { createLessonController } from "../lesson/controller.ts";
import { DEFAULT_LOCALE, t } from "../lesson/i18n.ts";
import type { LearnerServices } from "../lesson/profile-flows.ts";
import { REVIEW_MAX_ITEMS } from "../lesson/review.ts";
import { createStyler } from "./format.ts";
import type { AnswerSource } from "./input.ts";
import { PlanPictures } from "./plan-pictures.ts";
import { createTerminalPort, terminalUserName } from "./port.ts";
import { Screen } from "./screen.ts";

/** Options of runTerminalReview. */
export interface TerminalReviewOptions {
	tutor: Tutor;
	learning: LearnerServices;
	source: AnswerSource;
	output: Writable;
	color?: boolean;
	/** The learner (default: the playground's). */
	learner?: Participant;
	logger?: Logger;
}

/** Run one review; resolves with how many answers were graded. Never rejects on input trouble (it ends the review). */
export async function runTerminalReview(o: TerminalReviewOptions): Promise<{ answered: number }> {
	const s = createStyler(o.color ?? false);
	const screen = new Screen(o.output, false);
	const learner = o.learner ?? { id: "terminal-learner", name: terminalUserName() };
	const state = createMemoryStateStore();
	const port = createTerminalPort({
		screen,
		s,
		interactive: false,
		pictures: (threadId) => new PlanPictures("data/plans", threadId),
		lastPlan: () => undefined,
	});
	const controller = createLessonController({
		tutor: o.tutor,
		renderer: { renderPlan: async () => ({ key: "", caption: "", outline: "" }) },
		port,
		logger: o.logger ?? silentLogger,
		state,
		...o.learning,
	});
	const flows = controller.profile;
	if (!flows) return { answered: 0 };
	const actor = {
		by: learner,
		isAdmin: async () => true,
		notify: async (text: string) => screen.print(s("yellow", text)),
	};
	let answered = 0;
	try {
		const started = await flows.review.start(actor, { community: "terminal", channelId: "terminal" });
		if (!started || !("threadId" in started)) return { answered };
		const threadId = started.threadId;
		// Bounded: an empty line is asked again (the review said why), at most as often as there are questions.
		for (let reads = 0; reads < REVIEW_MAX_ITEMS * 2 && answered < REVIEW_MAX_ITEMS; reads++) {
			const review = (await state.get(stateKeys.review(threadId))) as { done?: boolean } | undefined;
			if (!review || review.done) break;
			const answer = await o.source.text(t(DEFAULT_LOCALE, "play.yourAnswer"));
			if (typeof answer !== "string") break;
			const result = await controller.typed(threadId, learner, answer);
			if (!result.ok && result.code === "invalid-answer") continue;
			if (!result.ok) {
				screen.print(s("yellow", result.message));
				break;
			}
			answered++;
		}
		return { answered };
	} finally {
		o.source.close();
		await controller.stop({ waitMs: 0 });
	}
}
