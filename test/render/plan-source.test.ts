import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PlanTree } from "../../src/core/contracts/plan.ts";
import { PLAN_COLORS, planCaption, planMermaidSource, planOutline, planPictureKey } from "../../src/render/index.ts";
import { LABEL_LINE_CHARS } from "../../src/render/plan-source.ts";
import { calculusPlan, calculusStatuses, hostilePlan, noStatuses } from "../../testkit/plans.ts";

const tree = calculusPlan;
const statuses = calculusStatuses;

describe("plan source", () => {
	it("classes nodes by derived status with our own node ids", () => {
		const src = planMermaidSource(tree, statuses);
		expect(src.startsWith("flowchart TD\n")).toBe(true);
		expect(src).toContain(`classDef current fill:${PLAN_COLORS.current.fill}`);
		expect(src).toMatch(/class n3 current/);
		expect(src).toMatch(/class n0,n1,n2 visited/);
		expect(src).toMatch(/class n4 upcoming/);
		expect(src).toContain("n0 --> n1");
		expect(src).not.toContain("limits"); // ids of the model never reach mermaid
	});

	it("escapes hostile labels so they stay text", () => {
		const src = planMermaidSource(hostilePlan, noStatuses());
		const labels = [...src.matchAll(/^ {2}n\d+\["(.*)"\]$/gm)].map((m) => m[1] ?? "");
		expect(labels).toHaveLength(hostilePlan.nodes.length);
		for (const label of labels) {
			// Our own <br/> line breaks are the only markup left in a label.
			expect(label.replace(/<br\/>/g, "")).not.toMatch(/["<>`\n\t]/);
		}
		expect(src).not.toMatch(/#quot;/); // a literal entity name is broken with a word joiner
		expect(src).toContain("#lt;script#gt;");
		// Only the plan's own edges: the `"] --> B[pwned` title made none.
		expect(src.split("\n").filter((l) => l.includes("-->"))).toHaveLength(hostilePlan.edges.length);
		expect(src).not.toMatch(/pwned\]/);
	});

	it("keeps any title inside its label: one node line each, short escaped lines (property)", () => {
		const title = fc.string({ unit: "grapheme", maxLength: 200 });
		fc.assert(
			fc.property(fc.array(title, { minLength: 1, maxLength: 12 }), (titles) => {
				const plan: PlanTree = {
					version: 1,
					nodes: titles.map((t, i) => ({ id: `id${i}`, title: t })),
					edges: titles.slice(1).map((_, i) => ({ from: `id${i}`, to: `id${i + 1}` })),
				};
				const src = planMermaidSource(plan, { current: "id0", visited: new Set() });
				const lines = src.trimEnd().split("\n");
				const nodeLines = lines.filter((l) => /^ {2}n\d+\[/.test(l));
				expect(nodeLines).toHaveLength(titles.length);
				for (const line of nodeLines) {
					const label = /^ {2}n\d+\["(.*)"\]$/.exec(line)?.[1];
					expect(label, line).toBeDefined();
					for (const part of String(label).split("<br/>")) {
						expect(part).not.toMatch(/["<>`]/);
						// Entities count as one character on screen.
						expect(Array.from(part.replace(/#\w+;/g, "_")).length).toBeLessThanOrEqual(24 + 1);
					}
				}
				expect(lines.filter((l) => l.includes("-->"))).toHaveLength(plan.edges.length);
			}),
			{ numRuns: 200 },
		);
	});

	it("wraps long labels at word boundaries", () => {
		const long: PlanTree = {
			version: 1,
			nodes: [{ id: "x", title: "The derivative as the limit of a difference quotient" }],
			edges: [],
		};
		const src = planMermaidSource(long, noStatuses());
		const label = /n0\["(.*)"\]/.exec(src)?.[1] ?? "";
		const lines = label.split("<br/>");
		expect(lines.length).toBeGreaterThan(1);
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(LABEL_LINE_CHARS);
		// Cut at LABEL_MAX_CHARS with an ellipsis (the alt text keeps the whole title).
		expect(lines.join(" ")).toBe("The derivative as the limit of a difference…");
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
		expect(planMermaidSource(wide, noStatuses())).toMatch(/^flowchart LR/);
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
		// caption, two nodes, the legend line
		expect(planOutline(odd, { current: "b", visited: new Set(["a"]) }).split("\n")).toHaveLength(4);
	});

	it("captions and outlines the state", () => {
		expect(planCaption(tree, statuses)).toBe("Now: Chain rule · 3 of 5 visited");
		expect(planCaption(tree, noStatuses())).toBe("Lesson map · 5 steps");
		expect(planOutline(tree, statuses)).toBe(
			[
				"Now: Chain rule · 3 of 5 visited",
				"• Limits",
				"  • The derivative as a rate of change",
				"    • Power rule",
				"      ▶ Chain rule  ← now",
				"    ○ Product rule",
				"Legend: ▶ current · ✓ learned · ~ shaky · • visited · ○ not yet",
			].join("\n"),
		);
		const mastery = { limits: "learned", deriv: "learned", power: "shaky", chain: "shaky" } as const;
		expect(planCaption(tree, statuses, mastery)).toBe("Now: Chain rule · 3 of 5 visited · 2 learned");
		expect(planOutline(tree, statuses, mastery).split("\n").slice(1, 6)).toEqual([
			"✓ Limits",
			"  ✓ The derivative as a rate of change",
			"    ~ Power rule",
			"      ▶ Chain rule  ← now (shaky)",
			"    ○ Product rule",
		]);
	});

	it("keys pictures by what is drawn", () => {
		const a = planPictureKey(planMermaidSource(tree, statuses));
		expect(a).toMatch(/^[0-9a-f]{16}$/);
		expect(
			planPictureKey(
				planMermaidSource({ ...tree }, { current: "chain", visited: new Set(["power", "deriv", "limits"]) }),
			),
		).toBe(a);
		expect(planPictureKey(planMermaidSource(tree, { current: "power", visited: new Set(["limits"]) }))).not.toBe(a);
	});
});
