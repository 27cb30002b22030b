/**
 * The eval's personas: who each learner is (topic, what it knows, the misconception it holds) and
 * how it behaves in a thread (clicks or types, asks questions of its own at a set rate, asks for
 * help). Six personas on three topics, one of them a group of three.
 */

import type { HelpKind } from "../../src/core/contracts/help.ts";
import { SimLearner } from "./learner.ts";
import { topicOf } from "./topics.ts";

/** One member's hidden state at the start. */
export interface MemberSpec {
	name: string;
	known: string[];
	misconceptions: string[];
}

/** A persona: one learner, or a group of members voting together. */
export interface Persona {
	name: string;
	about: string;
	topic: string;
	members: MemberSpec[];
	/** Answers typed in the thread as messages instead of clicks. */
	types: boolean;
	/** Chance, per quiz, to type a question of its own first ("wait, why…?"). */
	asks: number;
	/** Help it asks for on a quiz before answering (guardrail runs). */
	help?: HelpKind;
}

/** Every persona of the default run. */
export const PERSONAS: readonly Persona[] = [
	{
		name: "bs-novice",
		about: "binary search; knows only the linear scan",
		topic: "binary-search",
		members: [{ name: "novice", known: ["linear-scan"], misconceptions: [] }],
		types: false,
		asks: 0,
	},
	{
		name: "bs-lo-mid",
		about: "binary search; knows the basics, thinks the middle stays in the range (lo = mid)",
		topic: "binary-search",
		members: [
			{ name: "lo-mid", known: ["linear-scan", "sorted-input", "check-middle"], misconceptions: ["lo-equals-mid"] },
		],
		types: false,
		asks: 0,
	},
	{
		name: "bs-chatty",
		about: "binary search; types its answers in the thread and asks a question of its own on half the quizzes",
		topic: "binary-search",
		members: [{ name: "chatty", known: ["linear-scan", "sorted-input"], misconceptions: ["steps-linear"] }],
		types: true,
		asks: 0.5,
	},
	{
		name: "bs-group",
		about: "binary search; a study group of three: one has the basics, one knows little, one thinks lo = mid",
		topic: "binary-search",
		members: [
			{ name: "ana", known: ["linear-scan", "sorted-input", "check-middle"], misconceptions: [] },
			{ name: "ben", known: [], misconceptions: [] },
			{ name: "cy", known: ["linear-scan", "sorted-input"], misconceptions: ["lo-equals-mid"] },
		],
		types: false,
		asks: 0,
	},
	{
		name: "fr-tops",
		about: "adding fractions (math); adds tops and bottoms (1/2 + 1/3 = 2/5)",
		topic: "fractions",
		members: [{ name: "tops", known: ["fraction-meaning"], misconceptions: ["tops-and-bottoms"] }],
		types: false,
		asks: 0.25,
	},
	{
		name: "py-range",
		about: "Python for loops (code); thinks range(5) includes 5",
		topic: "python-loops",
		members: [{ name: "range", known: ["loop-body"], misconceptions: ["range-includes-end"] }],
		types: true,
		asks: 0,
	},
];

/** A persona by name (throws on an unknown one). */
export function personaOf(name: string): Persona {
	const persona = PERSONAS.find((p) => p.name === name);
	if (!persona) throw new Error(`no persona ${name}`);
	return persona;
}

/** The persona's learners, seeded. */
export function learnersOf(persona: Persona, seed: string): SimLearner[] {
	const topic = topicOf(persona.topic);
	return persona.members.map(
		(m) => new SimLearner(m.name, topic, m.known, m.misconceptions, `${seed}:${persona.name}`),
	);
}
