import { describe, expect, it } from "vitest";
import type { DerivedPlanStatuses, PlanTree } from "../../src/core/contracts/plan.ts";
import {
	PLAN_CURRENT_FILL,
	planCaption,
	planMermaidSource,
	planOutline,
	planPictureKey,
} from "../../src/render/index.ts";

const tree: PlanTree = {
	version: 1,
	nodes: [
		{ id: "limits", title: "Limits" },
		{ id: "deriv", title: "Derivative" },
		{ id: "power", title: "Power rule" },
		{ id: "chain", title: "Chain rule" },
		{ id: "product", title: "Product rule" },
	],
	edges: [
		{ from: "limits", to: "deriv" },
		{ from: "deriv", to: "power" },
		{ from: "power", to: "chain" },
		{ from: "deriv", to: "product" },
	],
};
const statuses: DerivedPlanStatuses = { current: "chain", visited: new Set(["limits", "deriv"]) };

describe("plan source", () => {
	it("classes nodes by derived status with our own node ids", () => {
		const src = planMermaidSource(tree, statuses);
		expect(src.startsWith("flowchart TD\n")).toBe(true);
		expect(src).toContain(`classDef current fill:${PLAN_CURRENT_FILL}`);
		expect(src).toMatch(/class n3 current/);
		expect(src).toMatch(/class n0,n1 visited/);
		expect(src).toMatch(/class n2,n4 upcoming/);
		expect(src).toContain("n0 --> n1");
		expect(src).not.toContain("limits"); // ids of the model never reach mermaid
	});

	it("escapes hostile labels so they stay text", () => {
		const hostile: PlanTree = {
			version: 1,
			nodes: [
				{ id: "a", title: 'He said "hi"] --> B[pwned' },
				{ id: "b", title: "<script>alert(1)</script><img src=https://evil.example/x.png>" },
				{ id: "c", title: "`markdown` #quot; & click callback" },
				{ id: "d", title: "line\nbreak\ttab 🚀 https://example.com/a?b=c" },
			],
			edges: [],
		};
		const src = planMermaidSource(hostile, { current: null, visited: new Set() });
		const labels = [...src.matchAll(/^ {2}n\d+\["(.*)"\]$/gm)].map((m) => m[1] ?? "");
		expect(labels).toHaveLength(4);
		for (const label of labels) {
			// Our own <br/> line breaks are the only markup left in a label.
			expect(label.replace(/<br\/>/g, "")).not.toMatch(/["<>`]/);
		}
		expect(src).not.toMatch(/#quot;/); // a literal entity name is broken with a word joiner
		expect(src).toContain("#lt;script#gt;");
		expect(src.split("\n").filter((l) => l.includes("-->"))).toHaveLength(0);
	});

	it("wraps long labels at word boundaries", () => {
		const long: PlanTree = {
			version: 1,
			nodes: [{ id: "x", title: "The derivative as the limit of a difference quotient" }],
			edges: [],
		};
		const src = planMermaidSource(long, { current: null, visited: new Set() });
		const label = /n0\["(.*)"\]/.exec(src)?.[1] ?? "";
		const lines = label.split("<br/>");
		expect(lines.length).toBeGreaterThan(1);
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(24);
		expect(lines.join(" ")).toBe("The derivative as the limit of a difference quotient");
	});

	it("lays a very wide plan out left to right", () => {
		const wide: PlanTree = {
			version: 1,
			nodes: [
				{ id: "root", title: "Root" },
				...Array.from({ length: 12 }, (_, i) => ({ id: `k${i}`, title: `Kid ${i}` })),
			],
			edges: Array.from({ length: 12 }, (_, i) => ({ from: "root", to: `k${i}` })),
		};
		expect(planMermaidSource(wide, { current: null, visited: new Set() })).toMatch(/^flowchart LR/);
	});

	it("tolerates cycles, unknown edges and duplicate ids", () => {
		const odd: PlanTree = {
			version: 3,
			nodes: [
				{ id: "a", title: "A" },
				{ id: "b", title: "B" },
				{ id: "a", title: "A again" },
			],
			edges: [
				{ from: "a", to: "b" },
				{ from: "b", to: "a" },
				{ from: "a", to: "ghost" },
				{ from: "a", to: "a" },
			],
		};
		const src = planMermaidSource(odd, { current: "b", visited: new Set(["a"]) });
		expect(src).not.toContain("A again");
		expect(src.match(/-->/g)).toHaveLength(2);
		expect(planOutline(odd, { current: "b", visited: new Set(["a"]) }).split("\n")).toHaveLength(3);
	});

	it("captions and outlines the state", () => {
		expect(planCaption(tree, statuses)).toBe("Now: Chain rule · 2 of 5 visited");
		expect(planCaption(tree, { current: null, visited: new Set() })).toBe("Lesson map · 5 steps");
		expect(planOutline(tree, statuses)).toBe(
			[
				"Now: Chain rule · 2 of 5 visited",
				"✓ Limits",
				"  ✓ Derivative",
				"    ○ Power rule",
				"      ▶ Chain rule  ← now",
				"    ○ Product rule",
			].join("\n"),
		);
	});

	it("keys pictures by what is drawn", () => {
		const a = planPictureKey(planMermaidSource(tree, statuses));
		expect(a).toMatch(/^[0-9a-f]{16}$/);
		expect(
			planPictureKey(planMermaidSource({ ...tree }, { current: "chain", visited: new Set(["deriv", "limits"]) })),
		).toBe(a);
		expect(planPictureKey(planMermaidSource(tree, { current: "power", visited: new Set(["limits"]) }))).not.toBe(a);
	});
});
