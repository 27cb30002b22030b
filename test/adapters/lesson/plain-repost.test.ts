/**
 * A question re-posted `plain` (the starts before died posting it) goes out as text: its formulas
 * as code spans, no pictures, the math renderer never asked. The same question otherwise is drawn.
 */

import { expect, it } from "vitest";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { createSerialQueues } from "../../../src/adapters/lesson/serial-queue.ts";
import { createThreadOutput } from "../../../src/adapters/lesson/thread-output.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { MathRenderer, PlanPicture } from "../../../src/render/index.ts";
import { postedRecords } from "./posted-records.ts";
import { type PortCall, recordingPort } from "./recording-port.ts";

const PNG = Buffer.from("89504e470d0a1a0a", "hex");

function output() {
	const log: PortCall[] = [];
	const drawn: string[] = [];
	const math: MathRenderer = {
		render: async (tex) => {
			drawn.push(tex);
			return { ok: true, png: PNG, width: 10, height: 10 };
		},
		stats: () => ({ renders: drawn.length, cacheHits: 0, failures: 0, knownFailures: 0, workers: 0 }),
		close: async () => undefined,
	};
	const queues = createSerialQueues(silentLogger);
	const out = createThreadOutput({
		port: recordingPort(log),
		renderer: { renderPlan: () => new Promise<PlanPicture>(() => {}) },
		math,
		state: new LessonState(createMemoryStateStore()),
		tutor: postedRecords(),
		queues,
		logger: silentLogger,
	});
	const posted = () => log.filter((c): c is Extract<PortCall, { call: "postCard" }> => c.call === "postCard");
	return { out, queues, drawn, posted };
}

const quiz = (plain: boolean): TutorEvent => ({
	type: "quiz",
	sessionId: "rec:t1",
	toolCallId: "q1",
	input: { question: String.raw`What is $$\frac{1}{2} + \frac{1}{4}$$?`, options: ["3/4", "1"], correctAnswer: "3/4" },
	replay: true,
	...(plain ? { plain: true } : {}),
});

it("a plain re-post shows the formula as code and draws nothing; a normal one draws it", async () => {
	const plain = output();
	plain.out.onEvent(quiz(true));
	await plain.queues.drain(5_000);
	expect(plain.drawn).toEqual([]);
	const [card] = plain.posted().map((c) => c.card);
	expect(card?.kind === "question" && card.question).toContain("`\\frac{1}{2} + \\frac{1}{4}`");
	expect(card && "attachments" in card ? (card.attachments ?? []) : []).toEqual([]);
	plain.out.stop();

	const rich = output();
	rich.out.onEvent(quiz(false));
	await rich.queues.drain(5_000);
	expect(rich.drawn).toEqual([String.raw`\frac{1}{2} + \frac{1}{4}`]);
	const [drawnCard] = rich.posted().map((c) => c.card);
	expect(drawnCard && "attachments" in drawnCard ? drawnCard.attachments : []).toHaveLength(1);
	rich.out.stop();
});
