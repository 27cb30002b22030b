/**
 * A simulated learner with a hidden knowledge state. Each node of its topic is known, unknown, or
 * held with a misconception (a wrong rule). It reads every tutor word (explanations, texts, hints)
 * and answers questions from its state; it learns by one documented rule (docs/evaluation.md):
 *
 * - tutor words about a node (cue per sentence) mark it EXPLAINED; a message of 160 characters or
 *   more teaches the one unknown node it is most about outright with P_READ (reading helps a little);
 * - an attempt at a question on an unknown node that was explained before (retrieval practice)
 *   moves it to known with P_LEARN; an answer copied from tutor words that gave it away teaches
 *   nothing (told, not retrieved);
 * - a misconception answers by its wrong rule; it is repaired only after it SHOWED (the learner
 *   answered by it) and the tutor then NAMED and contradicted it (the misconception's `named`
 *   words): the node becomes unknown and explained, so the next attempt can teach it;
 * - known nodes slip with P_SLIP; unknown nodes guess (a random option; "I don't know" when typed).
 *
 * Every roll comes from a seeded generator, in the order the tutor's words arrive: the same
 * words and seed give the same learner.
 */

import { type Misconception, nodeAbout, sentencesOf, type Topic, type TopicNode } from "./topics.ts";

/** The learning rule's probabilities (documented in docs/evaluation.md). */
export const RULE = { P_LEARN: 0.6, P_READ: 0.1, P_SLIP: 0.05, READ_CHARS: 160 } as const;

/** A node's hidden state. */
export type NodeState = "known" | "unknown" | "misconception";

/** A question as the learner sees it. */
export interface SeenQuestion {
	question: string;
	options?: readonly string[];
	/** The right answer (a quiz), or undefined (an ask). */
	correctAnswer?: string;
	nodeId?: string;
}

/** What the learner does with a question, and what it means by it. */
export interface LearnerAnswer {
	node?: string;
	/** The option it picks (index), when the question has options. */
	option?: number;
	/** The words it would type for this answer. */
	text: string;
	/** right / wrong: what it believes it answered; unknown: it said it does not know. */
	intends: "right" | "wrong" | "unknown";
	/** It copied an answer the tutor had given away. */
	copied: boolean;
}

/** A small seeded generator (mulberry32) and a string hash to seed it. */
export function seededRandom(seed: string): () => number {
	let h = 1779033703 ^ seed.length;
	for (let i = 0; i < seed.length; i++) {
		h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
		h = (h << 13) | (h >>> 19);
	}
	let a = h >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The hidden state of one simulated learner. */
export class SimLearner {
	readonly state = new Map<string, NodeState>();
	readonly held = new Map<string, Misconception>();
	readonly explained = new Set<string>();
	readonly surfaced = new Set<string>();
	readonly repaired: string[] = [];
	/** Nodes it restated in its last answer to a recall question. */
	recalled: string[] = [];
	/** Whether it was ever asked to recall. */
	askedToRecall = false;
	private readonly random: () => number;
	private readonly start: Map<string, NodeState>;

	constructor(
		readonly name: string,
		readonly topic: Topic,
		known: readonly string[],
		misconceptions: readonly string[],
		seed: string,
	) {
		this.random = seededRandom(`${seed}:${name}`);
		for (const node of topic.nodes) this.state.set(node.id, known.includes(node.id) ? "known" : "unknown");
		for (const id of misconceptions) {
			const m = topic.misconceptions.find((x) => x.id === id);
			if (!m) throw new Error(`no misconception ${id} on ${topic.id}`);
			this.held.set(m.node, m);
			this.state.set(m.node, "misconception");
		}
		this.start = new Map(this.state);
	}

	/** The hidden state when the lesson started. */
	get initial(): ReadonlyMap<string, NodeState> {
		return this.start;
	}

	/** Share of nodes known. */
	knownShare(state: ReadonlyMap<string, NodeState> = this.state): number {
		return [...state.values()].filter((s) => s === "known").length / Math.max(1, state.size);
	}

	/** Nodes known now that were not at the start. */
	learned(): string[] {
		return [...this.state].filter(([id, s]) => s === "known" && this.start.get(id) !== "known").map(([id]) => id);
	}

	/** The learner reads tutor words: marks explained nodes, may learn by reading, may drop a named misconception. */
	hear(text: string): void {
		const long = text.length >= RULE.READ_CHARS;
		const about = new Set<string>();
		for (const sentence of sentencesOf(text)) {
			for (const node of this.topic.nodes) if (sentence.match(node.cue)) about.add(node.id);
			for (const [nodeId, m] of this.held) {
				if (!this.surfaced.has(nodeId) || !m.named.test(sentence)) continue;
				this.held.delete(nodeId);
				this.state.set(nodeId, "unknown");
				this.explained.add(nodeId);
				this.repaired.push(m.id);
			}
		}
		for (const id of about) this.explained.add(id);
		// Reading teaches at most the one idea a long message is most about.
		const main = long ? nodeAbout(this.topic, text) : undefined;
		if (main && this.state.get(main.id) === "unknown" && this.random() < RULE.P_READ) this.state.set(main.id, "known");
	}

	/** The node a question is about (its tag when it names one of ours; its words otherwise). */
	nodeOf(q: SeenQuestion): TopicNode | undefined {
		return nodeAbout(this.topic, [q.question, ...(q.options ?? []), q.correctAnswer ?? ""].join("\n"), q.nodeId);
	}

	/** How the learner answers a quiz; `leaked`: the tutor's words gave its answer away before this attempt. */
	answer(q: SeenQuestion, leaked: boolean): LearnerAnswer {
		const node = this.nodeOf(q);
		const options = q.options ?? [];
		const right = q.correctAnswer ?? "";
		const rightIndex = options.findIndex((o) => o.trim() === right.trim());
		const pick = (index: number, intends: LearnerAnswer["intends"], copied = false): LearnerAnswer => ({
			...(node ? { node: node.id } : {}),
			option: index,
			text: options[index] ?? "",
			intends,
			copied,
		});
		const wrongIndex = (): number => {
			const wrong = options.map((_, i) => i).filter((i) => i !== rightIndex);
			return wrong[Math.floor(this.random() * wrong.length)] ?? 0;
		};
		const typed = (text: string, intends: LearnerAnswer["intends"], copied = false): LearnerAnswer => ({
			...(node ? { node: node.id } : {}),
			text,
			intends,
			copied,
		});
		if (leaked)
			return options.length > 0 && rightIndex >= 0 ? pick(rightIndex, "right", true) : typed(right, "right", true);
		const state = node ? this.state.get(node.id) : "unknown";
		if (state === "misconception" && node) {
			this.surfaced.add(node.id);
			const m = this.held.get(node.id);
			if (options.length === 0) return typed(m?.typed ?? "no idea", "wrong");
			const lured = options.findIndex((o, i) => i !== rightIndex && m?.lure.test(o));
			return pick(lured >= 0 ? lured : wrongIndex(), "wrong");
		}
		if (state === "known") {
			const slip = this.random() < RULE.P_SLIP;
			if (options.length === 0) return typed(slip ? "I'm not sure" : right, slip ? "unknown" : "right");
			return slip || rightIndex < 0 ? pick(wrongIndex(), "wrong") : pick(rightIndex, "right");
		}
		if (options.length === 0) return typed("I don't know", "unknown");
		const guess = Math.floor(this.random() * options.length);
		return pick(guess, guess === rightIndex ? "right" : "wrong");
	}

	/** After an attempt (retrieval practice): an explained unknown node may become known. */
	attempted(answer: LearnerAnswer): void {
		const node = answer.node;
		if (!node || answer.copied) return;
		if (this.state.get(node) === "unknown" && this.explained.has(node) && this.random() < RULE.P_LEARN)
			this.state.set(node, "known");
	}

	/** Whether a question asks the learner to recall what they learned. */
	static isRecall(question: string): boolean {
		return /\b(what (did|have) you learn\w*|in your own words|sum (it|this|that) up|summari[sz]e|recap|what stuck|teach it back|explain back)\b/i.test(
			question,
		);
	}

	/** The words it types to a free question: a recall of what it knows, or what it knows about the question's idea. */
	reply(question: string): string {
		if (SimLearner.isRecall(question)) {
			this.askedToRecall = true;
			const known = this.topic.nodes.filter((n) => this.state.get(n.id) === "known");
			this.recalled = known.map((n) => n.id);
			return known.length === 0 ? "Honestly, not much yet." : `${known.map((n) => n.says).join("; ")}.`;
		}
		const node = nodeAbout(this.topic, question);
		const state = node ? this.state.get(node.id) : undefined;
		if (node && state === "known") return `I think ${node.says}.`;
		if (node && state === "misconception") {
			this.surfaced.add(node.id);
			return `I'd say ${this.held.get(node.id)?.typed ?? "no idea"}.`;
		}
		return "I'm not sure.";
	}

	/** A seeded coin with probability `p` (for the persona's own behaviour: asking questions). */
	chance(p: number): boolean {
		return this.random() < p;
	}
}
