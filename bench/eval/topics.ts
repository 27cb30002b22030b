/**
 * The simulated learners' topic graphs: for each topic, the ideas (nodes) a learner can know, how
 * to recognise tutor words about each (a cue pattern, matched per sentence), what the learner says
 * when it restates the idea, and the misconceptions a persona may hold (the wrong rule's answer
 * pattern, and the words that name and contradict it). Pure data. Three topics: binary search (an
 * algorithm with code and a logarithm), adding fractions (math), Python `for` loops over `range`
 * (code). The demo model teaches binary search only; the other two need a real model.
 */

/** One idea of a topic. */
export interface TopicNode {
	id: string;
	title: string;
	/** Tutor words about this idea (case-insensitive; counted per match). */
	cue: RegExp;
	/** How the learner restates the idea in its own words (a recall answer). */
	says: string;
}

/** A wrong rule a learner may hold about one node. */
export interface Misconception {
	id: string;
	node: string;
	/** The wrong rule, in words (for the report). */
	rule: string;
	/** Option texts the wrong rule picks (the first option matching wins). */
	lure: RegExp;
	/** What the learner types when it answers by the wrong rule (free answers, thread messages). */
	typed: string;
	/** Tutor words that name the wrong rule and contradict it (a repair needs them after the rule showed). */
	named: RegExp;
}

/** A topic: what a lesson is requested on, its ideas and its known misconceptions. */
export interface Topic {
	id: string;
	/** The topic as a learner requests it (`/lesson start topic:…`). */
	request: string;
	kind: "algorithm" | "math" | "code";
	nodes: TopicNode[];
	misconceptions: Misconception[];
}

const BINARY_SEARCH: Topic = {
	id: "binary-search",
	request: "binary search",
	kind: "algorithm",
	nodes: [
		{
			id: "linear-scan",
			title: "Linear scan as the baseline",
			cue: /\b(one by one|linear(ly)?|every item|all of them|whole list|worst case)\b/gi,
			says: "checking items one by one costs n in the worst case",
		},
		{
			id: "sorted-input",
			title: "Sorted input",
			cue: /\b(sorted|unsorted|ordered|in order|order|shuffled)\b/gi,
			says: "it only works on sorted input",
		},
		{
			id: "check-middle",
			title: "Check the middle",
			cue: /\b(middle|halfway|which half)\b/gi,
			says: "you compare the target with the middle item",
		},
		{
			id: "shrink-range",
			title: "Shrink the range",
			cue: /\b(lo|hi|low|high|range|mid ?[+-] ?1|stop rule|not in the list|passes)\b/gi,
			says: "you move lo or hi past the middle and stop when lo passes hi",
		},
		{
			id: "count-steps",
			title: "Count the steps",
			cue: /\b(halvings?|halves|log2|log|logarithm|comparisons|2\^\d+|how fast|million)\b/gi,
			says: "it takes about log2 of n comparisons",
		},
	],
	misconceptions: [
		{
			id: "lo-equals-mid",
			node: "shrink-range",
			rule: "the middle stays in the range (lo = mid, hi = mid), so lo never passes hi",
			lure: /\blo = 3\b|\bhi = 4\b|\b(lo|hi) = mid\b|check index \d+ again|went wrong|start over/i,
			typed: "lo = mid",
			named: /\bmid ?[+-] ?1\b|ruled out too|past (it|the middle)|moves past/i,
		},
		{
			id: "steps-linear",
			node: "count-steps",
			rule: "binary search saves a constant factor: half the items need checking",
			lure: /\b(500,000|1,000,000|about 500|about 100|\b32\b)\b/i,
			typed: "about half of them",
			named: /\b(log2|halves the range|2\^\d+|far fewer)\b/i,
		},
	],
};

const FRACTIONS: Topic = {
	id: "fractions",
	request: "adding fractions",
	kind: "math",
	nodes: [
		{
			id: "fraction-meaning",
			title: "What a fraction means",
			cue: /\b(numerator|denominator|parts? of|equal parts|pieces?)\b/gi,
			says: "the denominator counts the equal parts and the numerator how many you take",
		},
		{
			id: "equivalent",
			title: "Equivalent fractions",
			cue: /\b(equivalent|same value|multiply (the )?(top|numerator) and (the )?(bottom|denominator)|scale|simplif\w*)\b/gi,
			says: "multiplying top and bottom by the same number keeps the value",
		},
		{
			id: "common-denominator",
			title: "A common denominator",
			cue: /\b(common denominator|same denominator|least common multiple|lcm|like denominators)\b/gi,
			says: "you first rewrite both fractions over a common denominator",
		},
		{
			id: "add-numerators",
			title: "Add the numerators",
			cue: /\b(add (the )?numerators|numerators add|keep the denominator|sum of the numerators)\b/gi,
			says: "with the same denominator you add the numerators and keep the denominator",
		},
	],
	misconceptions: [
		{
			id: "tops-and-bottoms",
			node: "add-numerators",
			rule: "add the numerators and add the denominators (1/2 + 1/3 = 2/5)",
			lure: /\b2\/5\b|\b2\/7\b|\b3\/7\b|add (the )?(tops and (the )?bottoms|denominators)/i,
			typed: "2/5",
			named: /(not|never|don't|can't|cannot) add (the )?denominators|denominators? (stays?|is kept)|not 2\/5/i,
		},
	],
};

const LOOPS: Topic = {
	id: "python-loops",
	request: "Python for loops with range",
	kind: "code",
	nodes: [
		{
			id: "loop-body",
			title: "The loop body repeats",
			cue: /\b(loop body|indented|indentation|each (time|iteration)|repeats?|iterat\w*)\b/gi,
			says: "the indented body runs once for each value",
		},
		{
			id: "range-stop",
			title: "range stops before its end",
			cue: /\b(range\(\d+\)|stops? before|exclusive|up to but not|not included|0 to \d+)\b/gi,
			says: "range(n) gives 0 up to n minus 1, the end is left out",
		},
		{
			id: "range-start-step",
			title: "range with a start and a step",
			cue: /\b(range\(\d+, ?\d+(, ?-?\d+)?\)|start value|step size|counts? by|counting by)\b/gi,
			says: "range(a, b, s) starts at a and counts by s before b",
		},
		{
			id: "accumulator",
			title: "Accumulating a total",
			cue: /\b(total|sum|accumulat\w*|\+=|running)\b/gi,
			says: "you keep a total before the loop and add to it inside",
		},
	],
	misconceptions: [
		{
			id: "range-includes-end",
			node: "range-stop",
			rule: "range(n) includes n (range(5) is 0..5, six values)",
			lure: /\b(6 times|six times|0, 1, 2, 3, 4, 5\b|includes? (the )?(5|end|n)|\b1 to 5\b)/i,
			typed: "0 to 5, six numbers",
			named: /(stops before|excludes?|not included|left out|up to but not|exclusive)/i,
		},
	],
};

/** Every topic of the eval. */
export const TOPICS: readonly Topic[] = [BINARY_SEARCH, FRACTIONS, LOOPS];

/** A topic by id (throws on an unknown id: the personas are ours). */
export function topicOf(id: string): Topic {
	const topic = TOPICS.find((t) => t.id === id);
	if (!topic) throw new Error(`no topic ${id}`);
	return topic;
}

/** Sentences of a text (bounded: at most 200). */
export function sentencesOf(text: string): string[] {
	return text
		.split(/(?<=[.!?:;])\s+|\n+/)
		.map((s) => s.trim())
		.filter((s) => s !== "")
		.slice(0, 200);
}

/** How often a node's cue matches `text`. */
export function cueHits(node: TopicNode, text: string): number {
	return text.slice(0, 4000).match(node.cue)?.length ?? 0;
}

/** The node `text` is most about (most cue hits; the earlier node on a tie), or undefined when none matches. */
export function nodeAbout(topic: Topic, text: string, tagged?: string): TopicNode | undefined {
	const exact = tagged ? topic.nodes.find((n) => n.id === tagged) : undefined;
	if (exact) return exact;
	let best: TopicNode | undefined;
	let most = 0;
	for (const node of topic.nodes) {
		const hits = cueHits(node, text);
		if (hits > most) {
			best = node;
			most = hits;
		}
	}
	return best;
}
