import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PlanTree } from "../../src/core/contracts/plan.ts";
import { MAX_PLAN_NODES, parsePlanMermaid, planToMermaid } from "../../src/core/plan-mermaid.ts";

function tree(source: string): PlanTree {
	const r = parsePlanMermaid(source);
	if (!r.ok) throw new Error(`expected a tree, got: ${r.error}`);
	return r.tree;
}
function error(source: string): string {
	const r = parsePlanMermaid(source);
	if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.tree)}`);
	return r.error;
}
const ids = (t: PlanTree) => t.nodes.map((n) => n.id);
const edges = (t: PlanTree) => t.edges.map((e) => `${e.from}>${e.to}`);

describe("parsePlanMermaid: what models write", () => {
	it("reads graph TD with labelled nodes and edges", () => {
		const t = tree("graph TD\n  a[Limits] --> b[Derivative]\n  b --> c[Chain rule]");
		expect(t.nodes).toEqual([
			{ id: "a", title: "Limits" },
			{ id: "b", title: "Derivative" },
			{ id: "c", title: "Chain rule" },
		]);
		expect(edges(t)).toEqual(["a>b", "b>c"]);
		expect(t.version).toBe(1);
	});

	it("accepts flowchart TD, TB and LR headers", () => {
		for (const h of ["flowchart TD", "flowchart TB", "flowchart LR", "graph TB", "graph"]) {
			expect(ids(tree(`${h}\n a --> b`))).toEqual(["a", "b"]);
		}
	});

	it("strips a markdown fence", () => {
		expect(ids(tree("```mermaid\ngraph TD\n a --> b\n```"))).toEqual(["a", "b"]);
		expect(ids(tree("```\ngraph TD\n a --> b\n```\n"))).toEqual(["a", "b"]);
	});

	it("reads every node shape", () => {
		const t = tree(
			'graph TD\n a\n b[Square]\n c["Label (with) brackets"]\n d(Round)\n e([Stadium])\n f{Decision}\n g[[Sub]]\n h((Circle))',
		);
		expect(t.nodes.map((n) => n.title)).toEqual([
			"a",
			"Square",
			"Label (with) brackets",
			"Round",
			"Stadium",
			"Decision",
			"Sub",
			"Circle",
		]);
	});

	it("reads edge text, chains, & groups and ; separators", () => {
		const t = tree("graph TD; a -->|needs| b --> c; x & y --> z; p -- leads to --> q");
		expect(edges(t)).toEqual(["a>b", "b>c", "x>z", "y>z", "p>q"]);
	});

	it("reads a-->b written without spaces, and slug ids with hyphens", () => {
		expect(edges(tree("graph TD\nchain-rule-intuition-->chain-rule-practice"))).toEqual([
			"chain-rule-intuition>chain-rule-practice",
		]);
		expect(edges(tree("graph TD\na-->b\na_1-->|x|b"))).toEqual(["a>b", "a_1>b"]);
	});

	it("ignores %% comments, classDef, class and style lines", () => {
		const t = tree(
			"graph TD\n%% the map\n a --> b %% trailing\n classDef done fill:#eee\n class a done\n style b fill:#f00\n linkStyle 0 stroke:#000",
		);
		expect(ids(t)).toEqual(["a", "b"]);
	});

	it("keeps nodes in first-appearance order, defaults labels to ids, collapses duplicate edges", () => {
		const t = tree("graph TD\n b --> a\n a[Alpha]\n b --> a\n c");
		expect(ids(t)).toEqual(["b", "a", "c"]);
		expect(t.nodes.find((n) => n.id === "b")?.title).toBe("b");
		expect(t.nodes.find((n) => n.id === "a")?.title).toBe("Alpha");
		expect(edges(t)).toEqual(["b>a"]);
	});

	it("accepts a node labelled twice with the same label", () => {
		expect(tree("graph TD\n a[X] --> b\n a[X] --> c").nodes[0]).toEqual({ id: "a", title: "X" });
	});

	it("decodes #quot; entities in labels", () => {
		expect(tree('graph TD\n a["Say #quot;hi#quot;"]').nodes[0]?.title).toBe('Say "hi"');
	});
});

describe("parsePlanMermaid: refusals the model can act on", () => {
	it("refuses a missing header", () => {
		expect(error("a --> b")).toMatch(/graph TD/);
		expect(error("")).toMatch(/empty/);
	});
	it("refuses a plan without nodes", () => {
		expect(error("graph TD\n%% nothing")).toMatch(/no nodes/);
	});
	it("refuses a cycle and names it", () => {
		expect(error("graph TD\n a --> b --> c --> a")).toMatch(/cycle \(a -> b -> c -> a\)/);
	});
	it("refuses a self-edge", () => {
		expect(error("graph TD\n a --> a")).toMatch(/itself/);
	});
	it("refuses a node defined twice with different labels", () => {
		expect(error("graph TD\n a[One] --> b\n a[Two]")).toMatch(/defined twice.*"One".*"Two"/);
	});
	it(`refuses more than ${MAX_PLAN_NODES} nodes`, () => {
		const lines = Array.from({ length: MAX_PLAN_NODES + 1 }, (_, i) => `n${i}`);
		expect(error(`graph TD\n${lines.join("\n")}`)).toMatch(/41 nodes/);
		expect(tree(`graph TD\n${lines.slice(0, MAX_PLAN_NODES).join("\n")}`).nodes).toHaveLength(MAX_PLAN_NODES);
	});
	it("refuses an unparseable line and quotes it", () => {
		expect(error("graph TD\n a --> b\n this is prose")).toMatch(/"this is prose"/);
		expect(error("graph TD\n a[unclosed --> b")).toMatch(/"a\[unclosed --> b"/);
		expect(error('graph TD\n a["open quote] --> b')).toMatch(/quote/);
	});
	it("refuses mermaid's reserved words as ids", () => {
		expect(error("graph TD\n a --> end")).toMatch(/reserved/);
	});
	it("refuses a non-string", () => {
		expect(error(42 as unknown as string)).toMatch(/string/);
	});
});

describe("planToMermaid", () => {
	it("prints canonical graph TD", () => {
		const t = tree("flowchart LR\n a(Alpha) --> b");
		expect(planToMermaid(t)).toBe('graph TD\n  a["Alpha"]\n  b["b"]\n  a --> b');
	});

	it("property: parse(print(t)) gives back t", () => {
		const id = fc.stringMatching(/^[A-Za-z0-9_]{1,6}(?:-[A-Za-z0-9_]{1,4})?$/).filter((s) => s.toLowerCase() !== "end");
		const title = fc
			.string({ minLength: 1, maxLength: 30 })
			.map((s) => s.replace(/[\r\n]/g, " ").trim())
			.filter((s) => s !== "");
		const arbTree = fc.uniqueArray(id, { minLength: 1, maxLength: 12, selector: (s) => s }).chain((nodeIds) =>
			fc
				.record({
					titles: fc.array(title, { minLength: nodeIds.length, maxLength: nodeIds.length }),
					// Forward pairs only (i < j), so the tree is acyclic; duplicates removed below.
					pairs: fc.array(fc.tuple(fc.nat(nodeIds.length - 1), fc.nat(nodeIds.length - 1)), { maxLength: 20 }),
				})
				.map(
					({ titles, pairs }): PlanTree => ({
						nodes: nodeIds.map((nid, i) => ({ id: nid, title: titles[i]! })),
						edges: [...new Set(pairs.filter(([a, b]) => a < b).map(([a, b]) => `${a} ${b}`))].map((key) => {
							const [a, b] = key.split(" ").map(Number);
							return { from: nodeIds[a!]!, to: nodeIds[b!]! };
						}),
						version: 1,
					}),
				),
		);
		fc.assert(
			fc.property(arbTree, (t) => {
				const back = parsePlanMermaid(planToMermaid(t));
				expect(back).toEqual({ ok: true, tree: t });
			}),
			{ numRuns: 300 },
		);
	});
});
