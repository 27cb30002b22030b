/**
 * What the playground remembers about a lesson between runs: the questions
 * shown and not yet answered, and how many "getting to know you" questions
 * were asked. Kept in the session's extra metadata, so `--resume` can show
 * the open question again and keep counting where it stopped.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../../core/contracts/plan.ts";
import type { SessionSummary, Tutor } from "../../core/contracts/tutor.ts";

/** A question the learner answers. */
export type QuestionEvent = Extract<TutorEvent, { type: "quiz" | "ask" }>;

/** The extra-metadata key holding the questions shown and not yet answered. */
export const OPEN_QUESTIONS_KEY = "terminal.open";
/** The extra-metadata key counting the "getting to know you" questions asked. */
export const PROBE_COUNT_KEY = "terminal.probeCount";

/** Open questions, the current map and the progress line of one lesson. */
export class LessonProgress {
	readonly open = new Map<string, QuestionEvent>();
	plan: { tree: PlanTree; statuses: DerivedPlanStatuses } | undefined;
	private probeQuestions = 0;

	constructor(
		private readonly tutor: Tutor,
		private readonly sessionId: string,
		private readonly logger: Logger,
	) {}

	/** Restores what a paused run saved; returns how many pending questions cannot be shown again. */
	restore(summary: SessionSummary): number {
		if (summary.plan) this.plan = summary.plan;
		const count = Number(summary.extra[PROBE_COUNT_KEY] ?? 0);
		this.probeQuestions = Number.isInteger(count) && count > 0 ? count : 0;
		const pendingIds = new Set(summary.pending.map((p) => p.toolCallId));
		let saved: unknown;
		try {
			saved = JSON.parse(summary.extra[OPEN_QUESTIONS_KEY] ?? "[]");
		} catch {
			saved = [];
		}
		for (const q of Array.isArray(saved) ? (saved as QuestionEvent[]) : [])
			if (q && pendingIds.has(q.toolCallId) && (q.type === "quiz" || q.type === "ask")) this.open.set(q.toolCallId, q);
		return pendingIds.size - this.open.size;
	}

	/** A question arrived: it is open until answered (saved, so a resume can show it again). */
	async opened(question: QuestionEvent): Promise<void> {
		if (this.open.has(question.toolCallId)) return;
		this.open.set(question.toolCallId, question);
		if (!this.plan) {
			this.probeQuestions++;
			await this.save(PROBE_COUNT_KEY, String(this.probeQuestions));
		}
		await this.saveOpen();
	}

	/** A question was answered (or will not be). */
	async closed(toolCallId: string): Promise<void> {
		if (this.open.delete(toolCallId)) await this.saveOpen();
	}

	/** e.g. "Getting to know you · question 2" or "Step 3 of 5 · Chain rule". */
	progressLine(question: QuestionEvent): string | undefined {
		if (!this.plan)
			return this.probeQuestions > 0 ? `Getting to know you · question ${this.probeQuestions}` : undefined;
		const { tree, statuses } = this.plan;
		const nodeId = question.type === "quiz" ? (question.nodeId ?? statuses.current) : statuses.current;
		const index = tree.nodes.findIndex((n) => n.id === nodeId);
		if (index < 0) return `Lesson map: ${tree.nodes.length} steps`;
		return `Step ${index + 1} of ${tree.nodes.length} · ${tree.nodes[index]?.title ?? ""}`;
	}

	private saveOpen(): Promise<void> {
		return this.save(OPEN_QUESTIONS_KEY, JSON.stringify([...this.open.values()]));
	}

	private async save(key: string, value: string): Promise<void> {
		try {
			await this.tutor.setExtra(this.sessionId, key, value);
		} catch (error) {
			this.logger.warn({ err: error, key }, "could not save the playground's state");
		}
	}
}
