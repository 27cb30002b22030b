/**
 * No import circles in src/, type-only imports included: a cycle through `import type` still couples
 * the files (neither can be read, moved or tested without the other). Each cycle is reported as a path
 * (`a.ts -> b.ts -> a.ts`); break one by moving the shared piece to the file it belongs to or to a small
 * file of its own, never by inlining a copy or a dynamic import (dynamic imports count here too).
 */
import { describe, expect, it } from "vitest";
import { importGraph } from "./source.ts";

/**
 * Cycles that may stay, each with why (none today: keep it empty or tiny). Written as the cycle's path
 * from its alphabetically first file, as `cyclesOf` reports it.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map();

/**
 * One cycle per strongly connected group of the graph (Tarjan's algorithm, iteratively), as the shortest
 * path from the group's alphabetically first file back to itself; a file importing itself is a cycle too.
 */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const groups: string[][] = [];
	const edges = (v: string) => (graph.get(v) ?? []).filter((w) => graph.has(w));
	for (const start of graph.keys()) {
		if (index.has(start)) continue;
		const work: Array<{ v: string; next: number }> = [{ v: start, next: 0 }];
		index.set(start, index.size);
		low.set(start, index.get(start)!);
		stack.push(start);
		onStack.add(start);
		while (work.length > 0) {
			const frame = work[work.length - 1]!;
			const out = edges(frame.v);
			if (frame.next < out.length) {
				const w = out[frame.next++]!;
				if (!index.has(w)) {
					index.set(w, index.size);
					low.set(w, index.get(w)!);
					stack.push(w);
					onStack.add(w);
					work.push({ v: w, next: 0 });
				} else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
				continue;
			}
			work.pop();
			const parent = work[work.length - 1];
			if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
			if (low.get(frame.v) !== index.get(frame.v)) continue;
			const group: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				group.push(w);
			} while (w !== frame.v);
			if (group.length > 1 || edges(frame.v).includes(frame.v)) groups.push(group);
		}
	}
	return groups.map((group) => shortestCycle(graph, new Set(group))).sort();
}

/** The shortest path from the group's first file back to it, inside the group (breadth first). */
function shortestCycle(graph: ReadonlyMap<string, readonly string[]>, group: ReadonlySet<string>): string {
	const first = [...group].sort()[0]!;
	const via = new Map<string, string>();
	const queue = [first];
	for (let i = 0; i < queue.length; i++) {
		const v = queue[i]!;
		for (const w of graph.get(v) ?? []) {
			if (!group.has(w)) continue;
			if (w === first) {
				const path = [v];
				while (path[0] !== first) path.unshift(via.get(path[0]!)!);
				return [...path, first].join(" -> ");
			}
			if (!via.has(w)) {
				via.set(w, v);
				queue.push(w);
			}
		}
	}
	return first;
}

describe("import circles", () => {
	it("src/ has none, type-only imports included", () => {
		const cycles = cyclesOf(importGraph()).filter((cycle) => !ALLOWED.has(cycle));
		expect(cycles).toEqual([]);
	});

	it("every allowed cycle still exists (so the list only shrinks)", () => {
		const cycles = new Set(cyclesOf(importGraph()));
		expect([...ALLOWED.keys()].filter((cycle) => !cycles.has(cycle))).toEqual([]);
	});

	it("the cycle finder reports each cycle as a path (so the rule above can fail)", () => {
		const graph = new Map([
			["a.ts", ["b.ts"]],
			["b.ts", ["c.ts", "d.ts"]],
			["c.ts", ["a.ts"]],
			["d.ts", ["e.ts"]],
			["e.ts", ["d.ts", "outside.ts"]],
			["f.ts", ["f.ts"]],
			["g.ts", ["a.ts"]],
		]);
		expect(cyclesOf(graph)).toEqual(["a.ts -> b.ts -> c.ts -> a.ts", "d.ts -> e.ts -> d.ts", "f.ts -> f.ts"]);
		expect(
			cyclesOf(
				new Map([
					["a.ts", ["b.ts"]],
					["b.ts", []],
				]),
			),
		).toEqual([]);
		// The graph has type-only edges: the boundary's own reader sees `import type` (cycles.test.ts would miss
		// the cycles it is about otherwise).
		const graphOfSrc = importGraph();
		expect(graphOfSrc.get("core/contracts/events.ts")).toContain("core/contracts/vote-outcome.ts");
		// Every relative import lands on a file of the graph: no edge is lost to a path read wrong.
		const lost = [...graphOfSrc].flatMap(([file, targets]) =>
			targets.filter((t) => !graphOfSrc.has(t)).map((t) => `${file} -> ${t}`),
		);
		expect(lost).toEqual([]);
	});
});
