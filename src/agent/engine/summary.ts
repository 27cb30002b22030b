/**
 * A session's read-only summary (for /lesson status and the playground), all
 * derived from the record.
 */

import { derivePlanStatuses } from "../../core/contracts/plan.ts";
import type { PendingQuestion, SessionSummary } from "../../core/contracts/tutor.ts";
import { derivePlanMastery } from "../../core/mastery.ts";
import { deriveLessonPhase, findAssessment, isSuccessfulProbeDone } from "../../core/phases.ts";
import { findToolCall, latestPlanTree, pendingLearnerCalls, toolParts } from "../../core/transcript.ts";
import { DEFAULT_LOCALE, isLocale } from "../../i18n/index.ts";
import type { LessonMessage } from "../store/types.ts";
import { displayAsk, displayQuiz } from "./display.ts";
import type { SessionState } from "./session-state.ts";
import { memberResults } from "./votes.ts";

/** Summarize a live session (claimed questions no longer count as pending). */
export function summarize(state: SessionState): SessionSummary {
	const r = state.record;
	const tree = latestPlanTree(r.messages);
	const assessment = findAssessment(r.messages);
	return {
		sessionId: r.sessionId,
		topic: r.topic,
		learner: r.learner,
		mode: r.mode,
		language: isLocale(r.language) ? r.language : DEFAULT_LOCALE,
		phase: r.ended ? "ended" : deriveLessonPhase(r.messages),
		createdAt: r.createdAt,
		...(assessment ? { assessment } : {}),
		...(tree
			? { plan: { tree, statuses: derivePlanStatuses(tree, r.messages), mastery: derivePlanMastery(tree, r.messages) } }
			: {}),
		pending: pendingLearnerCalls(r.messages)
			.filter((p) => !state.claims.has(p.toolCallId))
			.map((p) => withInput(p, findToolCall(r.messages, p.toolCallId)?.part.input)),
		probeQuestions: countProbeQuestions(r.messages),
		messageCount: r.messages.length,
		...(r.mode === "group" ? { members: memberResults(r.messages) } : {}),
		usage: { ...r.usage },
	};
}

/** A pending call with the display parse of its input (what its card and answer form show). */
function withInput(pending: { toolCallId: string; kind: "quiz" | "ask" }, raw: unknown): PendingQuestion {
	if (pending.kind === "quiz") {
		const input = displayQuiz(raw);
		return { ...pending, kind: "quiz", ...(input ? { input } : {}) };
	}
	const input = displayAsk(raw);
	return { ...pending, kind: "ask", ...(input ? { input } : {}) };
}

/** The quiz and ask calls before the first successful probe_done (all of them while the probe runs). */
function countProbeQuestions(messages: readonly LessonMessage[]): number {
	let count = 0;
	for (const part of toolParts(messages)) {
		if (isSuccessfulProbeDone(part as unknown as Parameters<typeof isSuccessfulProbeDone>[0])) break;
		if (part.type === "tool-quiz" || part.type === "tool-ask") count++;
	}
	return count;
}
