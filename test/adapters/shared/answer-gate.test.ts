/**
 * The answer gate: memory-only checks before a modal (answered, ended, solo
 * lesson of someone else; unknown means "let the tutor decide"), and the full
 * check from the tutor's summary after the ack.
 */

import { describe, expect, it } from "vitest";
import { AnswerGate, refusalFromSummary } from "../../../src/adapters/shared/answer-gate.ts";
import type { SessionSummary } from "../../../src/core/contracts/tutor.ts";

const summary = (over: Partial<SessionSummary> = {}): SessionSummary => ({
	sessionId: "s",
	topic: "t",
	learner: { id: "U1" },
	mode: "solo",
	phase: "probe",
	createdAt: new Date(0).toISOString(),
	pending: [{ toolCallId: "q1", kind: "quiz" }],
	messageCount: 3,
	usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
	extra: {},
	...over,
});

describe("AnswerGate (memory only)", () => {
	it("knows nothing at first, so it refuses nothing (the tutor decides)", () => {
		expect(new AnswerGate().refusalFromMemory("s", "q1", "U2")).toBeUndefined();
	});

	it("refuses another member in a solo lesson, not in a group lesson", () => {
		const gate = new AnswerGate();
		gate.rememberLesson("solo", { mode: "solo", learnerId: "U1" });
		gate.rememberLesson("group", { mode: "group", learnerId: "U1" });
		expect(gate.refusalFromMemory("solo", "q", "U2")).toBe("not-allowed");
		expect(gate.refusalFromMemory("solo", "q", "U1")).toBeUndefined();
		expect(gate.refusalFromMemory("group", "q", "U2")).toBeUndefined();
		gate.forgetLesson("solo");
		expect(gate.refusalFromMemory("solo", "q", "U2")).toBeUndefined();
	});

	it("refuses answered questions and ended lessons, for everyone", () => {
		const gate = new AnswerGate();
		gate.markAnswered("s", "q1");
		expect(gate.refusalFromMemory("s", "q1", "U1")).toBe("already-answered");
		expect(gate.refusalFromMemory("s", "q2", "U1")).toBeUndefined();
		gate.markEnded("s"); // even for a lesson it never saw start
		expect(gate.refusalFromMemory("s", "q2", "U1")).toBe("ended");
	});

	it("remembers question texts per session", () => {
		const gate = new AnswerGate();
		gate.rememberQuestion("s", "q1", "What is 2 + 2?");
		expect(gate.questionText("s", "q1")).toBe("What is 2 + 2?");
		expect(gate.questionText("other", "q1")).toBeUndefined();
	});
});

describe("refusalFromSummary (after the ack)", () => {
	it("decides from the tutor's view of the session", () => {
		expect(refusalFromSummary(undefined, "q1", "U1")).toBe("unknown-session");
		expect(refusalFromSummary(summary({ phase: "ended" }), "q1", "U1")).toBe("ended");
		expect(refusalFromSummary(summary(), "q9", "U1")).toBe("not-pending");
		expect(refusalFromSummary(summary(), "q1", "U2")).toBe("not-allowed");
		expect(refusalFromSummary(summary({ mode: "group" }), "q1", "U2")).toBeUndefined();
		expect(refusalFromSummary(summary(), "q1", "U1")).toBeUndefined();
	});
});
