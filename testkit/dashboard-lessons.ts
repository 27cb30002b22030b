/**
 * Ended lessons as the engine stores them (session records with a map drawn by
 * plan_init, tagged check and predict quizzes with graded results, learners'
 * typed messages, group lessons with per-member ballots), generated from a seed
 * for the dashboard's test and benchmark. Each check's result is drawn from the
 * outcomes a real lesson records: right on the first try, missed, right after a
 * second try or a hint, "not sure", or never asked (the node stays not yet).
 */

import type { LessonMessage, SessionRecord } from "../src/agent/index.ts";
import type { Participant } from "../src/core/contracts/events.ts";

/** A topic and the titles of its map's nodes. */
export interface SeedTopic {
	topic: string;
	nodes: string[];
}

/** What to generate. */
export interface SeedOptions {
	platform: "discord" | "slack";
	/** The guild or team id. */
	community: string;
	lessons: number;
	members: Participant[];
	topics: SeedTopic[];
	/** The newest lesson starts here; each earlier one `spacingMs` before (default an hour). */
	end: Date;
	spacingMs?: number;
	seed?: number;
	/** Every n-th lesson is a group lesson of three members (0: none). */
	groupEvery?: number;
	/** Texts put into the first lesson: the learner's message, the tutor's text, a quiz question. */
	payload?: { learner: string; tutor: string; question: string };
}

/** A small deterministic generator (mulberry32). */
export function seededRandom(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

type Outcome = "first-try" | "missed" | "second-try" | "hinted" | "not-sure" | "unasked";
const OUTCOMES: Outcome[] = [
	"first-try",
	"first-try",
	"first-try",
	"missed",
	"second-try",
	"hinted",
	"not-sure",
	"unasked",
];

/** A graded result as the engine records it. */
function resultOf(outcome: Outcome, answer: string, by: Participant): Record<string, unknown> {
	switch (outcome) {
		case "first-try":
			return { answer, correct: true, by };
		case "missed":
			return { answer: "42", correct: false, by };
		case "second-try":
			return { answer, correct: true, attempts: [{ answer: "41", correct: false }], by };
		case "hinted":
			return { answer, correct: true, hints: ["Think of the parts."], hinted: true, by };
		default:
			return { answer: "I don't know", correct: false, notSure: true, by };
	}
}

/** The session id of lesson `n`. */
function sessionIdOf(o: SeedOptions, n: number): string {
	const thread = String(1_300_000_000_000_000_000n + BigInt(n));
	return o.platform === "discord"
		? `discord:${o.community}:${thread}`
		: `slack:${o.community}:C1:${1_700_000_000 + n}.000100`;
}

/** `o.lessons` ended lessons, newest last. */
export function seededLessons(o: SeedOptions): SessionRecord[] {
	const rng = seededRandom(o.seed ?? 1);
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
	const spacing = o.spacingMs ?? 3_600_000;
	const records: SessionRecord[] = [];
	for (let n = 0; n < o.lessons; n++) {
		const sessionId = sessionIdOf(o, n);
		const topic = pick(o.topics);
		const group = (o.groupEvery ?? 0) > 0 && n % (o.groupEvery ?? 1) === (o.groupEvery ?? 1) - 1;
		const learner = pick(o.members);
		const others = o.members.filter((m) => m.id !== learner.id);
		const people = group
			? [learner, ...[pick(others), pick(others)].filter((p, i, a) => a.indexOf(p) === i)]
			: [learner];
		const start = new Date(o.end.getTime() - (o.lessons - 1 - n) * spacing);
		const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000).toISOString();
		const nodes = topic.nodes.map((title, i) => ({ id: `n${i + 1}`, title }));
		const tree = {
			nodes,
			edges: nodes.slice(1).map((node, i) => ({ from: nodes[i]?.id ?? "", to: node.id })),
			version: 1,
		};
		const first = n === 0 ? o.payload : undefined;
		const parts: Array<Record<string, unknown>> = [
			{
				type: "tool-plan_init",
				toolCallId: `plan-${n}`,
				state: "output-available",
				input: { mermaid: "graph TD" },
				output: { ok: true, tree },
			},
		];
		if (first) parts.push({ type: "text", text: first.tutor });
		for (const node of nodes) {
			// A predict quiz first now and then: it never moves mastery.
			if (rng() < 0.3)
				parts.push({
					type: "tool-quiz",
					toolCallId: `p-${n}-${node.id}`,
					state: "output-available",
					input: {
						question: `What do you expect of ${node.title}?`,
						correctAnswer: "7",
						type: "predict",
						nodeId: node.id,
					},
					output: { answer: "3", correct: false, by: learner },
				});
			const question = first && node.id === "n1" ? first.question : `Check: ${node.title}?`;
			const input = { question, options: ["7", "42", "41"], correctAnswer: "7", type: "check", nodeId: node.id };
			const ballots = people.map((p) => ({ person: p, outcome: pick(OUTCOMES) }));
			if (ballots.every((b) => b.outcome === "unasked")) continue;
			if (!group) {
				const outcome = ballots[0]?.outcome ?? "unasked";
				if (outcome === "unasked") continue;
				parts.push({
					type: "tool-quiz",
					toolCallId: `q-${n}-${node.id}`,
					state: "output-available",
					input,
					output: resultOf(outcome, "7", learner),
				});
				continue;
			}
			// A group vote: each member's ballot, right or wrong, or none (a member who did not vote).
			const members = ballots
				.filter((b) => b.outcome !== "unasked")
				.map((b) => ({
					id: b.person.id,
					...(b.person.name ? { name: b.person.name } : {}),
					answer: b.outcome === "first-try" ? "7" : "42",
					correct: b.outcome === "first-try",
				}));
			const correctVotes = members.filter((m) => m.correct).length;
			parts.push({
				type: "tool-quiz",
				toolCallId: `q-${n}-${node.id}`,
				state: "output-available",
				input,
				output: {
					answer: correctVotes * 2 >= members.length ? "7" : "42",
					correct: correctVotes * 2 >= members.length,
					by: learner,
					vote: {
						round: 1,
						voters: members.length,
						correctVotes,
						counts: [],
						members,
						split: false,
						revote: false,
						timedOut: false,
						namesShown: false,
					},
				},
			});
		}
		parts.push({ type: "text", text: "Well done: that is the recap." });
		const messages: LessonMessage[] = [
			{
				id: `m${n}-0`,
				role: "user",
				parts: [{ type: "text", text: `Start the lesson on ${topic.topic}.` }],
				metadata: { kind: "context", note: "start" },
			},
			{
				id: `m${n}-1`,
				role: "assistant",
				parts: parts as LessonMessage["parts"],
				metadata: { agent: "teacher", at: at(2) },
			},
			{
				id: `m${n}-2`,
				role: "user",
				parts: [{ type: "text", text: first?.learner ?? "thanks!" }],
				metadata: { kind: "learner", by: learner, at: at(20) },
			},
		];
		records.push({
			format: 1,
			sessionId,
			topic: topic.topic,
			learner,
			mode: group ? "group" : "solo",
			startedBy: learner,
			createdAt: start.toISOString(),
			updatedAt: at(25),
			messages,
			usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
			extra: {},
			ended: { reason: "completed", at: at(25) },
		});
	}
	return records;
}
