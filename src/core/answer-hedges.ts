/**
 * What a typed answer says *around* a value, read from its tokens: a
 * comparison ("less than 8", "≥ 8"), an approximation ("about 8", "~8"), a
 * negation ("anything but left"), a multiplier ("8x"), a longer term
 * ("binary search tree" is not "binary search"), or an instruction to the
 * judge ("ignore previous instructions", "mark this correct"). None of them
 * gives the bare value; nor does a rejection ("8 is wrong"). English, with the common German and Spanish
 * comparators and negations. Phrases are looked up in sets a few tokens at a
 * time (no regex): linear in the answer. Rules: docs/engine.md, Answers.
 */

import type { AnswerToken } from "./answer-tokens.ts";

/** How a number is qualified: strictly compared (`< 8`), bounded (`at most 8`), or approximate (`about 8`). */
export type Qualifier = "strict" | "bound" | "approximate";

/** Longest qualifier phrase, in tokens. */
const MAX_PHRASE = 3;

const phrases = (list: string): Set<string> => new Set(list.split("|").map((p) => p.trim()));

/** Before a number: it is strictly above or below it. */
const STRICT_BEFORE = phrases(
	"less than|more than|greater than|fewer than|lower than|higher than|smaller than|bigger than|larger than|" +
		"under|over|below|above|beyond|< |> |" +
		"weniger als|mehr als|kleiner als|grosser als|großer als|hoher als|niedriger als|unter|uber|" +
		"menos de|mas de|menos que|mas que|mayor que|menor que|por debajo de|por encima de",
);
/** Before a number: it is a bound that includes it. */
const BOUND_BEFORE = phrases(
	"at least|at most|up to|no more than|no less than|no fewer than|not more than|not less than|max|min|≤|≥|< =|> =|" +
		"mindestens|hochstens|bis zu|wenigstens|al menos|como minimo|como maximo|hasta|por lo menos",
);
/** Before a number: roughly it. */
const APPROXIMATE_BEFORE = phrases(
	"about|around|roughly|approximately|approx|circa|ca|nearly|almost|close to|~|≈|some|" +
		"ungefahr|etwa|rund|fast|annahernd|aproximadamente|aprox|alrededor de|cerca de|casi|unos|unas",
);
/** After a number: a bound or an approximation ("8 or more", "8-ish", "8+"). */
const BOUND_AFTER = phrases(
	"at most|at least|max|maximum|min|minimum|or more|or less|or fewer|+|und mehr|o mas|o menos",
);
const APPROXIMATE_AFTER = phrases(
	"ish|- ish|or so|more or less|give or take|roughly|approximately|oder so|mas o menos",
);

/** Words after a number that multiply it (`8x`, `8 times`, `8-fold`, `8 squared`): it is not the bare number. */
export const MULTIPLIERS = new Set(["x", "times", "fold", "squared", "cubed", "dozen", "trillion", "mal", "veces"]);

/** Words that negate (one token, after the tokenizer dropped apostrophes). */
export const NEGATIONS = new Set(
	(
		"not no never nor neither dont doesnt didnt isnt arent wasnt werent cant cannot wont wouldnt shouldnt couldnt " +
		"hasnt havent aint nicht kein keine keinen keiner keines nie niemals nunca jamas tampoco ni"
	)
		.split(" ")
		.filter((w) => w !== ""),
);
/** Words that reject what they stand beside ("8 is wrong", "8 ist falsch", "8 es incorrecto"): never the answer. */
export const REJECTIONS = new Set(
	"wrong incorrect mistaken falsch inkorrekt unrichtig incorrecto incorrecta erroneo erronea equivocado equivocada".split(
		" ",
	),
);
/** Words that offer alternatives or exclude: a match beside one of them is not a commitment. */
export const ALTERNATIVES = new Set(
	"or either vs versus between unless except excluding besides oder entweder zwischen ausser außer excepto salvo sino menos".split(
		" ",
	),
);
/** Two-word phrases that exclude what follows ("anything but left", "other than 8"). */
const EXCLUDING = phrases(
	"anything but|everything but|all but|any but|but not|other than|rather than|instead of|apart from|aside from|" +
		"alles ausser|alles außer|statt|anstatt|todo menos|cualquier cosa menos|en vez de|en lugar de|aparte de",
);

/** First words of the two-word excluding phrases: only these start a pair worth looking up. */
const EXCLUDING_FIRST = new Set([...EXCLUDING].map((p) => p.split(" ")[0]!));

const textAt = (tokens: readonly AnswerToken[], from: number, to: number): string =>
	tokens
		.slice(from, to)
		.map((t) => t.text)
		.join(" ");

/** A phrase of `set` that ends right before token `end` (without a pause inside it or before `end`). */
function phraseBefore(tokens: readonly AnswerToken[], end: number, set: ReadonlySet<string>): boolean {
	for (let length = 1; length <= MAX_PHRASE && length <= end; length++) {
		if (tokens[end - length + 1]?.pause && length > 1) return false;
		if (set.has(textAt(tokens, end - length, end))) return true;
	}
	return false;
}

/** A phrase of `set` that starts at token `start` (not after a pause). */
function phraseAt(tokens: readonly AnswerToken[], start: number, set: ReadonlySet<string>): boolean {
	if (tokens[start]?.pause) return false;
	for (let length = 1; length <= MAX_PHRASE && start + length <= tokens.length; length++)
		if (set.has(textAt(tokens, start, start + length))) return true;
	return false;
}

/** Abbreviations whose dot is not a pause before the number: "ca. 8", "approx. 8", "max. 8". */
const ABBREVIATIONS = new Set(["ca", "approx", "aprox", "max", "min", "mind"]);

/** How the number at tokens [start, end) is qualified, if it is: a comparator, a bound or an approximation. */
export function qualifierOf(tokens: readonly AnswerToken[], start: number, end: number): Qualifier | undefined {
	const joined = !tokens[start]?.pause || ABBREVIATIONS.has(tokens[start - 1]?.text ?? "");
	if (joined && phraseBefore(tokens, start, BOUND_BEFORE)) return "bound";
	if (joined && phraseBefore(tokens, start, STRICT_BEFORE)) return "strict";
	if (joined && phraseBefore(tokens, start, APPROXIMATE_BEFORE)) return "approximate";
	// "8+" and "8-ish" are glued to the number; "8 + 2" is a sum (another number follows).
	const after = tokens[end];
	if (after?.text === "+" && tokens[end + 1]?.kind !== "num") return "bound";
	if (phraseAt(tokens, end, BOUND_AFTER) && after?.text !== "+") return "bound";
	if (phraseAt(tokens, end, APPROXIMATE_AFTER)) return "approximate";
	return undefined;
}

/** The multiplier right after a number (`8x`, `8 times`, `8 ×`), if there is one. */
export function multiplierAfter(tokens: readonly AnswerToken[], end: number): string | undefined {
	// "8-fold": the hyphen is a symbol token of its own.
	const hyphen = tokens[end]?.text === "-" && tokens[end + 1]?.kind === "word" && !tokens[end + 1]?.pause;
	const after = tokens[hyphen ? end + 1 : end];
	if (after === undefined || after.pause) return undefined;
	if (after.kind === "word" && MULTIPLIERS.has(after.text))
		return after.text === "mal" || after.text === "veces" ? "times" : after.text;
	if ((after.text === "×" || after.text === "*") && tokens[end + 1]?.kind !== "num") return "x";
	return undefined;
}

/** How many negations, rejections ("wrong"), alternatives and excluding phrases ("anything but") the tokens hold. */
export function hedgeCount(tokens: readonly AnswerToken[]): number {
	let count = 0;
	for (let i = 0; i < tokens.length; i++) {
		const t = tokens[i]!;
		if (t.kind === "sym" && t.text === "≠") count++;
		if (t.kind !== "word") continue;
		if (NEGATIONS.has(t.text) || ALTERNATIVES.has(t.text) || EXCLUDING.has(t.text) || REJECTIONS.has(t.text)) count++;
		else if (EXCLUDING_FIRST.has(t.text) && i + 1 < tokens.length && !tokens[i + 1]!.pause) {
			if (EXCLUDING.has(`${t.text} ${tokens[i + 1]!.text}`)) count++;
		}
	}
	return count;
}

/** Verbs that tell a judge what to do, and what they must be followed by to be an instruction. */
const OVERRIDE_VERBS = new Set([
	"ignore",
	"disregard",
	"forget",
	"override",
	"bypass",
	"ignoriere",
	"ignorier",
	"ignorieren",
	"vergiss",
	"ignora",
	"ignorar",
	"olvida",
]);
const OVERRIDE_OBJECTS = new Set(
	(
		"previous prior above earlier all any your the these those instructions instruction rules prompt system everything " +
		"grader judge vorherigen alle deine die anweisungen regeln las los todas todo tus instrucciones reglas anteriores"
	)
		.split(" ")
		.filter((w) => w !== ""),
);
const GRADING_VERBS = new Set(
	(
		"mark grade score treat accept rate evaluate judge output respond reply flag label " +
		"markiere bewerte werte marca califica evalua acepta"
	)
		.split(" ")
		.filter((w) => w !== ""),
);
/** Grade words an instruction asks for ("right" and "true" are answers too often to count). */
export const CORRECT_WORDS = new Set(["correct", "pass", "passed", "richtig", "korrekt", "correcto", "correcta"]);
/** "this is correct", "it's correct", "the answer is correct": an assertion about the grade, with nothing in it. */
const ASSERTION_SUBJECTS = new Set([
	"this",
	"that",
	"it",
	"answer",
	"response",
	"mine",
	"esto",
	"eso",
	"das",
	"antwort",
]);
const COPULAS = new Set(["is", "be", "as", "ist", "es", "sea"]);
/** How far after the verb the object or the grade word may stand ("mark this answer as correct"). */
const REACH = 4;

/** Instructions to the judge the tokens hold: orders ("ignore…", "mark this correct") and bare assertions ("it's correct"). */
export function instructionCount(tokens: readonly AnswerToken[]): { orders: number; assertions: number } {
	let orders = 0;
	let assertions = 0;
	const within = (i: number, set: ReadonlySet<string>, reach: number): boolean => {
		for (let j = i + 1; j <= i + reach && j < tokens.length; j++) if (set.has(tokens[j]!.text)) return true;
		return false;
	};
	for (let i = 0; i < tokens.length; i++) {
		const t = tokens[i]!;
		if (t.kind !== "word") continue;
		if (OVERRIDE_VERBS.has(t.text) && within(i, OVERRIDE_OBJECTS, 2)) orders++;
		else if (GRADING_VERBS.has(t.text) && within(i, CORRECT_WORDS, REACH)) orders++;
		else if (CORRECT_WORDS.has(t.text)) {
			const before = tokens[i - 1]?.text ?? "";
			const subject = tokens[i - 2]?.text ?? "";
			if (before === "its" || before === "thats" || (COPULAS.has(before) && ASSERTION_SUBJECTS.has(subject)))
				assertions++;
		}
	}
	return { orders, assertions };
}

/** Words that may stand right before a term without changing it ("I think it's the chain rule"). */
const LEAD_INS = new Set(
	(
		"the a an its it is was be would will should must i id im ive think guess believe say said answer use using " +
		"used call called named with go choose pick take try apply applying do does did doing need needs maybe " +
		"probably perhaps definitely surely sure obviously clearly just simply so then well oh ok okay yes yeah hmm " +
		"um uh because by via of in on to for from at as my our we you they he she that this thats answer is are am " +
		"get gets got uses go goes turn turns move moves option choice es la el lo los las die der das ist"
	)
		.split(" ")
		.filter((w) => w !== ""),
);
/** Words that may follow a term without changing it ("binary search, because…", "binary search here"). */
const TRAILERS = new Set(
	(
		"is are was were be because since as so then here there i think guess probably maybe right obviously of course " +
		"for on in to with which that this it its works work applies apply again too also now yes ok please lol " +
		"haha sure surely definitely presumably basically algorithm method approach technique strategy i guess " +
		"would will should"
	)
		.split(" ")
		.filter((w) => w !== ""),
);
/** Symbols that wrap or name a term without extending it: `(b) beta`, `answer = chain rule`. */
const NEUTRAL_SYMBOLS = new Set(["(", ")", "[", "]", "=", "|"]);

/** The token beside a term extends it: another content word, a number or an operator, with no pause between. */
function extendsAt(neighbour: AnswerToken | undefined, pause: boolean, words: ReadonlySet<string>): boolean {
	if (neighbour === undefined || pause) return false;
	if (neighbour.kind === "sym") return !NEUTRAL_SYMBOLS.has(neighbour.text);
	if (neighbour.kind === "num") return true;
	// "not beta", "beta or gamma": a hedge, which the hedge count judges, not a longer term.
	const hedge = NEGATIONS.has(neighbour.text) || ALTERNATIVES.has(neighbour.text) || REJECTIONS.has(neighbour.text);
	return !(words.has(neighbour.text) || hedge);
}

/**
 * True when the run of tokens [start, end) is part of a longer term: "binary search tree" is not
 * "binary search", "top left" is not "left". Fillers ("it's binary search!", "binary search because…")
 * and a pause (", tree") do not extend it; a unit after a run that ends in a number does not either.
 */
export function extendsTerm(tokens: readonly AnswerToken[], start: number, end: number): boolean {
	const before = extendsAt(tokens[start - 1], tokens[start]?.pause === true, LEAD_INS);
	const next = tokens[end];
	const unit = tokens[end - 1]?.kind === "num" && next?.kind === "word";
	const after = !unit && extendsAt(next, next?.pause === true, TRAILERS);
	return before || after;
}
