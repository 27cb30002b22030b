/**
 * The display parses of stored tool inputs (core's parse seam), memoized per
 * input object. A stored input is never mutated (messages are replaced, and a
 * replaced tool part keeps its input object), so a quiz is parsed once when it
 * is posted, not again for every click and answer on it. Results are frozen:
 * they are shared by every event that shows the question.
 */

import { parseAskInput, parseQuizInput } from "../../core/tool-parts.ts";

type Parsed<T> = T | undefined;

function deepFreeze<T>(value: T): T {
	if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
		for (const inner of Object.values(value)) deepFreeze(inner);
		Object.freeze(value);
	}
	return value;
}

function memoized<T>(parse: (input: unknown) => Parsed<T>): (input: unknown) => Parsed<Readonly<T>> {
	const cache = new WeakMap<object, { value: Parsed<T> }>();
	return (input) => {
		if (typeof input !== "object" || input === null) return parse(input);
		let hit = cache.get(input);
		if (!hit) {
			hit = { value: deepFreeze(parse(input)) };
			cache.set(input, hit);
		}
		return hit.value;
	};
}

/** parseQuizInput, memoized per stored input object. */
export const displayQuiz = memoized(parseQuizInput);

/** parseAskInput, memoized per stored input object. */
export const displayAsk = memoized(parseAskInput);
