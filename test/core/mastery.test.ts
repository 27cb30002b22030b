import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PlanTree } from "../../src/core/contracts/plan.ts";
import { checkVerdict, derivePlanMastery, nodeMastery } from "../../src/core/mastery.ts";
import { cpuMs } from "../fixtures/time-bound.ts";

const tree: PlanTree = {
	nodes: [
		{ id: "a", title: "A" },
		{ id: "b", title: "B" },
		{ id: "c", title: "C" },
	],
	edges: [
		{ from: "a", to: "b" },
		{ from: "b", to: "c" },
	],
	version: 1,
};

type Part = { type: string; state?: string; input?: unknown; output?: unknown };
const input = (nodeId: unknown, type: unknown) => ({
	question: "2 + 2?",
	options: ["3", "4"],
	correctAnswer: "4",
	...(type === "none" ? {} : { type }),
	...(nodeId === undefined ? {} : { nodeId }),
});
/** A quiz call on `nodeId`, answered with `output` (or still open when output is undefined). */
const quiz = (nodeId: unknown, output?: unknown, type: unknown = "check"): Part => ({
	type: "tool-quiz",
	state: output === undefined ? "input-available" : "output-available",
	input: input(nodeId, type),
	...(output === undefined ? {} : { output }),
});
const by = { id: "u1", name: "Ada" };
const right = { answer: "4", correct: true, by };
const wrong = { answer: "3", correct: false, by };
const msgs = (...parts: Part[]) => [{ parts }];

describe("derivePlanMastery", () => {
	it("starts every node at not-yet", () => {
		expect(derivePlanMastery(tree, [])).toEqual({ a: "not-yet", b: "not-yet", c: "not-yet" });
	});

	it("learned on a first-try correct check with no help; shaky on a miss or a skip", () => {
		const m = derivePlanMastery(
			tree,
			msgs(quiz("a", right), quiz("b", wrong), quiz("c", { answer: "", by, skipped: true })),
		);
		expect(m).toEqual({ a: "learned", b: "shaky", c: "shaky" });
	});

	it("takes the most recent answered check of a node", () => {
		expect(derivePlanMastery(tree, msgs(quiz("a", wrong), quiz("a", right))).a).toBe("learned");
		expect(derivePlanMastery(tree, msgs(quiz("a", right), quiz("a", wrong))).a).toBe("shaky");
		// An open (unanswered) check after an answer leaves the answer standing.
		expect(derivePlanMastery(tree, msgs(quiz("a", right), quiz("a"))).a).toBe("learned");
	});

	it("counts help as shaky even when the answer was right: attempts, hints, not sure, revealed", () => {
		for (const help of [
			{ attempts: ["3"] },
			{ hints: ["look again"] },
			{ hints: 1 },
			{ notSure: true },
			{ revealed: true },
		])
			expect(derivePlanMastery(tree, msgs(quiz("a", { ...right, ...help }))).a, JSON.stringify(help)).toBe("shaky");
		// Empty or false help fields are no help.
		const none = { ...right, attempts: [], hints: [], notSure: false, revealed: false };
		expect(derivePlanMastery(tree, msgs(quiz("a", none))).a).toBe("learned");
	});

	it("leaves a node where it was on an unsure judgement (no `correct`) until judged", () => {
		const unsure = { answer: "four-ish", judged: "unsure", by };
		expect(derivePlanMastery(tree, msgs(quiz("a", unsure))).a).toBe("not-yet");
		expect(derivePlanMastery(tree, msgs(quiz("a", wrong), quiz("a", unsure))).a).toBe("shaky");
	});

	it("ignores predict quizzes, untyped quizzes, untagged quizzes, unknown ids and error results", () => {
		const m = derivePlanMastery(
			tree,
			msgs(quiz("a", wrong, "predict"), quiz("a", wrong, "none"), quiz(undefined, wrong), quiz("ghost", wrong), {
				type: "tool-quiz",
				state: "output-error",
				input: input("b", "check"),
				output: wrong,
			}),
		);
		expect(m).toEqual({ a: "not-yet", b: "not-yet", c: "not-yet" });
	});

	it("reads a healed quiz type as the boundary does (a JSON-encoded string), nothing else", () => {
		expect(derivePlanMastery(tree, msgs(quiz("a", right, '"check"'))).a).toBe("learned");
		for (const type of ["CHECK", "checks", 1, null, { check: true }])
			expect(derivePlanMastery(tree, msgs(quiz("a", right, type))).a, String(type)).toBe("not-yet");
	});

	it("reads odd outputs defensively", () => {
		for (const output of [null, "yes", 42, [], { correct: "true" }]) expect(checkVerdict(output)).toBeUndefined();
		expect(nodeMastery(undefined, "a")).toBe("not-yet");
		expect(nodeMastery({ a: "learned" }, "constructor")).toBe("not-yet");
	});

	it("is linear: 20,000 answered checks derive in well under a second", () => {
		const parts = Array.from({ length: 20_000 }, (_, i) => quiz(["a", "b", "c"][i % 3], i % 2 ? right : wrong));
		const started = cpuMs(); // CPU time: a loaded machine's wait for a core is not this work
		const m = derivePlanMastery(tree, msgs(...parts));
		expect(cpuMs() - started).toBeLessThan(1_000);
		expect(Object.keys(m)).toHaveLength(3);
	});
});

const nodeIdArb = fc.constantFrom("a", "b", "c", "ghost", undefined);
const outputArb = fc.oneof(
	fc.constant(undefined),
	fc.record({
		answer: fc.constant("x"),
		by: fc.constant(by),
		correct: fc.option(fc.boolean(), { nil: undefined }),
		skipped: fc.option(fc.boolean(), { nil: undefined }),
		attempts: fc.option(fc.array(fc.string(), { maxLength: 2 }), { nil: undefined }),
		notSure: fc.option(fc.boolean(), { nil: undefined }),
	}),
);
const partArb: fc.Arbitrary<Part> = fc.oneof(
	fc
		.record({ nodeId: nodeIdArb, output: outputArb, type: fc.constantFrom("check", "predict") })
		.map((q) => quiz(q.nodeId, q.output, q.type)),
	fc.constant({ type: "text" }),
	fc.constant({ type: "tool-explain", state: "output-available", input: { nodeId: "a" }, output: { ok: true } }),
);
const params = { seed: 20_415, numRuns: 300 };

describe("derivePlanMastery properties", () => {
	it("is derived from calls and results only: other parts and the split into messages move nothing", () => {
		fc.assert(
			fc.property(fc.array(partArb, { maxLength: 30 }), (parts) => {
				const quizzes = parts.filter((p) => p.type === "tool-quiz");
				const whole = derivePlanMastery(tree, msgs(...parts));
				expect(derivePlanMastery(tree, msgs(...quizzes))).toEqual(whole);
				expect(
					derivePlanMastery(
						tree,
						parts.map((p) => ({ parts: [p] })),
					),
				).toEqual(whole);
			}),
			params,
		);
	});

	it("untagged quizzes and unknown node ids move nothing", () => {
		fc.assert(
			fc.property(fc.array(partArb, { maxLength: 30 }), outputArb, fc.nat(30), (parts, output, at) => {
				const before = derivePlanMastery(tree, msgs(...parts));
				for (const stray of [quiz(undefined, output), quiz("ghost", output), quiz(7, output)]) {
					const mixed = [...parts.slice(0, at), stray, ...parts.slice(at)];
					expect(derivePlanMastery(tree, msgs(...mixed))).toEqual(before);
				}
			}),
			params,
		);
	});

	it("predict quizzes never change mastery", () => {
		fc.assert(
			fc.property(fc.array(partArb, { maxLength: 30 }), nodeIdArb, outputArb, fc.nat(30), (parts, id, out, at) => {
				const before = derivePlanMastery(tree, msgs(...parts));
				const mixed = [...parts.slice(0, at), quiz(id, out, "predict"), ...parts.slice(at)];
				expect(derivePlanMastery(tree, msgs(...mixed))).toEqual(before);
			}),
			params,
		);
	});

	it("every node of the tree gets exactly one of the three values", () => {
		fc.assert(
			fc.property(fc.array(partArb, { maxLength: 30 }), (parts) => {
				const m = derivePlanMastery(tree, msgs(...parts));
				expect(Object.keys(m).sort()).toEqual(["a", "b", "c"]);
				for (const v of Object.values(m)) expect(["learned", "shaky", "not-yet"]).toContain(v);
			}),
			params,
		);
	});
});
