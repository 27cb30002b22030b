/**
 * The lesson map: a dependency tree of the ideas the learner still needs,
 * authored by the teacher with plan_init (a mermaid `graph TD` block,
 * canonicalized by core/plan-mermaid.ts). The tree carries structure only;
 * where the learner is (current, visited) is derived from the transcript on
 * every read (derivePlanStatuses), never stored.
 */

/** One idea of the map. */
export interface PlanNode {
	/** Opaque, agent-chosen slug, stable across edits: "chain-rule-intuition". */
	id: string;
	/** Short label shown on the map. */
	title: string;
	/** 1-2 sentences: what this node covers. */
	summary?: string;
}

/** A dependency: `from` is needed before `to`. */
export interface PlanEdge {
	/** Prerequisite node id. */
	from: string;
	/** Node that depends on `from`. */
	to: string;
}

/** The map: nodes, edges and a version (1 for the first plan_init, +1 per rewrite). */
export interface PlanTree {
	nodes: PlanNode[];
	edges: PlanEdge[];
	/** Increments with every successful plan_init: adapters repost the picture on a new version. */
	version: number;
}

/** Derived, never stored: where a node stands for the learner. */
export type PlanNodeStatus = "current" | "visited" | "upcoming";

// Position comes from CALLS, never from results. A quiz's `nodeId` means "this
// question is ABOUT this node": a position signal, not a completion signal.
//   current: the node of the most RECENT tagged quiz call (any state);
//   visited: every node of an EARLIER stay.
// Several questions on one node hold the map still; moving to a new node is the
// teacher's judgment that the previous one is done, whatever the answers were.
// Before the first tagged quiz nothing is current. Untagged quizzes, and node ids
// missing from the current tree (a rewrite may have dropped them), move nothing.

/** Minimal structural message slice: anything with typed parts (as in phases.ts). */
interface PartsCarrier {
	parts: Array<{ type: string; state?: string; input?: unknown; output?: unknown }>;
}

/** Where the learner is on the map, derived from the transcript. */
export interface DerivedPlanStatuses {
	/** The node the most recent tagged quiz call is about; null before any. */
	current: string | null;
	/** Nodes of earlier stays (been there; a revisited node is both visited and current). */
	visited: ReadonlySet<string>;
}

/** The status of one node (current wins over visited). */
export function derivedNodeStatus(statuses: DerivedPlanStatuses, nodeId: string): PlanNodeStatus {
	if (statuses.current === nodeId) return "current";
	if (statuses.visited.has(nodeId)) return "visited";
	return "upcoming";
}

/** Current and visited nodes, from the tagged quiz calls of the transcript. */
export function derivePlanStatuses(tree: PlanTree, messages: readonly PartsCarrier[]): DerivedPlanStatuses {
	const ids = new Set(tree.nodes.map((n) => n.id));
	const runs: string[] = []; // distinct tagged nodes in call order, CONSECUTIVE
	// duplicates collapsed (several checks on one node = one stay on it)
	for (const m of messages) {
		for (const part of m.parts) {
			if (part.type !== "tool-quiz") continue;
			const nodeId = (part.input as { nodeId?: unknown } | undefined)?.nodeId;
			if (typeof nodeId !== "string" || !ids.has(nodeId)) continue; // untagged/unknown — moves nothing
			if (runs.at(-1) !== nodeId) runs.push(nodeId);
		}
	}
	const current = runs.at(-1) ?? null;
	// Visited = been there in an EARLIER stay: everything before the current
	// run. A revisit (a→b→a) puts a in visited AND current — current wins at
	// render (derivedNodeStatus), visited records it has been left before.
	const visited = new Set(runs.slice(0, -1));
	return { current, visited };
}

/** plan_init's tool result. A block that does not parse is a tool error instead, naming the problem. */
export interface PlanToolResult {
	ok: true;
	tree: PlanTree;
}
