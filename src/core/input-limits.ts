/**
 * Hard ceilings on model-authored tool input. They are generous on purpose:
 * no real lesson comes near them. They exist so that no input, however
 * large or deeply nested, can make a parser, a card or the store do
 * unbounded work. The tighter rules a learner's screen needs (a question
 * under 1,500 characters, 2 to 25 options) are the refinements in
 * question-core.ts; a value over a ceiling is refused before those run, by
 * the schema, with an error naming the field and the limit.
 */

/** Ceilings the tool schemas declare (maxLength / maxItems), shown to the model as JSON Schema. */
export const INPUT_LIMITS = {
	/** plan_init's mermaid block: a 40-node map is ~4,000 characters. */
	mermaidMaxChars: 20_000,
	/** quiz/ask question text. */
	questionMaxChars: 8_000,
	/** One quiz option, or an ask option's label. */
	optionMaxChars: 2_000,
	/** Options of a quiz or an ask. */
	maxOptions: 100,
	/** An ask option's value (a short key). */
	optionValueMaxChars: 500,
	/** quiz correctAnswer. */
	answerMaxChars: 2_000,
	/** quiz acceptedAnswers: equivalent forms of a free answer. */
	maxAcceptedAnswers: 20,
	/** One accepted answer (a short form). */
	acceptedAnswerMaxChars: 500,
	/** quiz explanation. */
	explanationMaxChars: 8_000,
	/** explain body (markdown). */
	explainBodyMaxChars: 30_000,
	/** explain title. */
	titleMaxChars: 1_000,
	/** A plan node id in a quiz or explain. */
	nodeIdMaxChars: 200,
	/** probe_done strands. */
	maxStrands: 50,
	/** A strand's name. */
	strandMaxChars: 1_000,
	/** A strand's assessment, and the overall summary. */
	assessmentMaxChars: 8_000,
} as const;

/** Ceilings on the shape of any argument value, checked before it is cloned or converted. */
export const ARGUMENT_SHAPE_LIMITS = {
	/** Nesting depth of arrays and objects (our schemas need 4). */
	maxDepth: 32,
	/** Values (primitives, arrays, objects) in one argument object. */
	maxValues: 10_000,
} as const;

/**
 * Why `value` is too deep or too large to process, or undefined when it is fine.
 * Iterative (an explicit stack), so a depth-100,000 value cannot overflow the call stack,
 * and it stops at the first ceiling crossed, so it is bounded whatever the input.
 */
export function argumentShapeProblem(value: unknown): string | undefined {
	const { maxDepth, maxValues } = ARGUMENT_SHAPE_LIMITS;
	const tooMany = `The arguments hold more than ${maxValues} values; send only the fields the tool describes.`;
	const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
	let counted = 1; // counted before pushing, so a million-item array is refused without a million pushes
	while (stack.length > 0) {
		const top = stack.pop()!;
		if (typeof top.value !== "object" || top.value === null) continue;
		if (top.depth >= maxDepth)
			return `The arguments nest deeper than ${maxDepth} levels; send only the fields the tool describes.`;
		const children: unknown[] = Array.isArray(top.value) ? top.value : Object.values(top.value);
		if (counted + children.length > maxValues) return tooMany;
		counted += children.length;
		for (const child of children) stack.push({ value: child, depth: top.depth + 1 });
	}
	return undefined;
}
