/**
 * A plan picture that never arrives holds the thread back by at most the controller's
 * `pictureWaitMs`: its outline is posted in its place, and the question that follows goes
 * out after it, in order.
 */

import { describe, expect, it } from "vitest";
import { createLessonController } from "../../../src/adapters/lesson/controller.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { PlanTree } from "../../../src/core/contracts/plan.ts";
import type { PlanPicture } from "../../../src/render/index.ts";
import { FakeTutor } from "./fake-tutor.ts";
import { type PortCall, recordingPort } from "./recording-port.ts";

const tree: PlanTree = {
	nodes: [
		{ id: "a", title: "Halves" },
		{ id: "b", title: "Quarters" },
	],
	edges: [{ from: "a", to: "b" }],
	version: 1,
};

describe("a slow plan picture", () => {
	it("is posted as its outline after the bound, and the next question follows", async () => {
		const tutor = new FakeTutor();
		const log: Array<PortCall | { call: string }> = [];
		let asked = 0;
		const controller = createLessonController({
			tutor,
			// A renderer that never answers (a wedged browser).
			renderer: {
				renderPlan: () => {
					asked++;
					return new Promise<PlanPicture>(() => {});
				},
			},
			port: recordingPort(log),
			logger: silentLogger,
			state: createMemoryStateStore(),
			pictureWaitMs: 50,
		});
		controller.attach();
		const sessionId = "rec:t1";
		await tutor.emit({
			type: "plan",
			sessionId,
			tree,
			statuses: { current: "a", visited: new Set<string>() },
			reason: "init",
		});
		await tutor.emit({
			type: "quiz",
			sessionId,
			toolCallId: "q1",
			input: { question: "Half of 1?", options: ["0.5", "2"], correctAnswer: "0.5" },
		});
		expect(await controller.flush(10_000)).toBe(true);
		expect(asked).toBe(1);
		expect(log.map((c) => c.call)).toEqual(["postPicture", "postCard"]);
		const picture = (log[0] as Extract<PortCall, { call: "postPicture" }>).picture;
		expect(picture.png).toBeUndefined();
		expect(picture.outline).toContain("Halves");
		expect(picture.error).toMatch(/outline/);
		await controller.stop();
	});
});
