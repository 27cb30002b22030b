import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { derivedNodeStatus, derivePlanStatuses, type PlanTree } from "../../src/core/contracts/plan.ts";

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
const quiz = (nodeId?: unknown, state = "input-available"): Part => ({
	type: "tool-quiz",
	state,
	input: nodeId === undefined ? { question: "q" } : { question: "q", nodeId },
});
const msgs = (...parts: Part[]) => [{ parts }];

describe("derivePlanStatuses", () => {
	it("has nothing current before the first tagged quiz call", () => {
		const s = derivePlanStatuses(tree, msgs(quiz(), { type: "text" }));
		expect(s.current).toBeNull();
		expect(s.visited.size).toBe(0);
	});

	it("takes current from the most recent tagged quiz call", () => {
		const s = derivePlanStatuses(tree, msgs(quiz("a"), quiz("b")));
		expect(s.current).toBe("b");
		expect([...s.visited]).toEqual(["a"]);
	});

	it("collapses consecutive duplicates into one stay", () => {
		const s = derivePlanStatuses(tree, msgs(quiz("a"), quiz("a"), quiz("a")));
		expect(s.current).toBe("a");
		expect(s.visited.size).toBe(0);
	});

	it("puts a revisited node in both visited and current (a -> b -> a), and current wins", () => {
		const s = derivePlanStatuses(tree, msgs(quiz("a"), quiz("b"), quiz("a")));
		expect(s.current).toBe("a");
		expect(new Set(s.visited)).toEqual(new Set(["a", "b"]));
		expect(derivedNodeStatus(s, "a")).toBe("current");
		expect(derivedNodeStatus(s, "b")).toBe("visited");
		expect(derivedNodeStatus(s, "c")).toBe("upcoming");
	});

	it("lets untagged quizzes and unknown node ids move nothing", () => {
		const s = derivePlanStatuses(tree, msgs(quiz("a"), quiz(), quiz("zzz"), quiz(42)));
		expect(s.current).toBe("a");
		expect(s.visited.size).toBe(0);
	});

	it("reads calls in any state, never results (an errored call still positions)", () => {
		const s = derivePlanStatuses(tree, msgs(quiz("a", "output-error"), quiz("b", "input-streaming")));
		expect(s.current).toBe("b");
	});

	it("moves on by the teacher's judgment: a failed check then a move-on is still visited (results feed nothing)", () => {
		const failed: Part = { ...quiz("a", "output-available"), output: { answer: "x", correct: false } };
		const s = derivePlanStatuses(tree, msgs(failed, quiz("b")));
		expect(s.current).toBe("b");
		expect([...s.visited]).toEqual(["a"]);
		const passed: Part = { ...quiz("a", "output-available"), output: { answer: "y", correct: true } };
		expect(derivePlanStatuses(tree, msgs(passed, quiz("b")))).toEqual(s);
	});

	it("holds the map still while several questions are about one node", () => {
		const s = derivePlanStatuses(tree, msgs(quiz("a"), quiz("b"), quiz(), quiz("b"), quiz("b")));
		expect(s.current).toBe("b");
		expect([...s.visited]).toEqual(["a"]);
	});

	it("ignores node ids a rewrite dropped from the tree", () => {
		const rewritten: PlanTree = { ...tree, nodes: tree.nodes.filter((n) => n.id !== "b"), version: 2 };
		const s = derivePlanStatuses(rewritten, msgs(quiz("a"), quiz("b")));
		expect(s.current).toBe("a");
		expect(s.visited.size).toBe(0);
	});

	it("ignores other tools' nodeIds", () => {
		const s = derivePlanStatuses(tree, msgs({ type: "tool-explain", input: { nodeId: "c" } }));
		expect(s.current).toBeNull();
	});

	it("property: current and visited are always ids of the tree", () => {
		const ids = ["a", "b", "c", "x", "y"];
		fc.assert(
			fc.property(fc.array(fc.option(fc.constantFrom(...ids), { nil: undefined }), { maxLength: 30 }), (tags) => {
				const s = derivePlanStatuses(tree, msgs(...tags.map((t) => quiz(t))));
				const known = new Set(tree.nodes.map((n) => n.id));
				if (s.current !== null) expect(known.has(s.current)).toBe(true);
				for (const v of s.visited) expect(known.has(v)).toBe(true);
			}),
		);
	});

	it("property: untagged calls anywhere do not change the result", () => {
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 20 }),
				fc.array(fc.nat(25), { maxLength: 10 }),
				(tags, insertAt) => {
					const tagged = tags.map((t) => quiz(t));
					const mixed = [...tagged];
					for (const at of insertAt) mixed.splice(Math.min(at, mixed.length), 0, quiz());
					const a = derivePlanStatuses(tree, msgs(...tagged));
					const b = derivePlanStatuses(tree, msgs(...mixed));
					expect(b.current).toBe(a.current);
					expect(new Set(b.visited)).toEqual(new Set(a.visited));
				},
			),
		);
	});
});
