/**
 * Math in a card -> pictures with the card: every display formula (and
 * every inline one that is more than letters and operators) becomes a PNG
 * attachment whose alt text is its TeX, and the text keeps the TeX as a code
 * span for copying. Quiz choices holding math are drawn together, lettered,
 * in one picture (the controls then carry the letters only). A formula that
 * does not typeset stays a code span. At most MATH_MAX_PICTURES formulas tried per card.
 */

import type { Card, CardAttachment, CardChoice, QuestionCard } from "../cards/model.ts";
import { findMath, type MathSpan } from "./find-math.ts";
import type { MathRenderer } from "./renderer.ts";

/** Most formulas tried on one card, drawn or not (Discord allows 10 attachments a message). */
export const MATH_MAX_PICTURES = 10;
/** Longest choice text drawn in the choices' picture. */
const CHOICE_MAX_CHARS = 300;

/** TeX as a code span: backticks inside get a longer fence, whitespace is flattened. */
export function texCodeSpan(tex: string): string {
	const flat = tex.replace(/\s+/g, " ").trim();
	let ticks = "`";
	while (flat.includes(ticks)) ticks += "`";
	const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
	return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** Inline math worth a picture: anything beyond letters, digits and plain operators. */
const worthPicture = (span: MathSpan): boolean => span.display || /[\\^_{}]/.test(span.tex);

/** The text with each formula replaced by its TeX in a code span (display formulas on their own line). */
export function mathAsCode(text: string, spans: readonly MathSpan[] = findMath(text)): string {
	if (spans.length === 0) return text;
	let out = "";
	let last = 0;
	for (const span of spans) {
		const code = texCodeSpan(span.tex);
		out += text.slice(last, span.start) + (span.display ? `\n${code}\n` : code);
		last = span.end;
	}
	return (out + text.slice(last)).replace(/\n{3,}/g, "\n\n");
}

/** Failures that stop a card's drawing: the sandbox had to stop the formula (its time or memory ran out). */
const STOPPED = new Set(["timeout", "memory", "crashed"]);

/**
 * Collects pictures across a card's fields: deduplicated, bounded. Every formula tried counts
 * toward MATH_MAX_PICTURES, drawn or not, and one the sandbox had to stop ends the card's drawing
 * (the rest stay code): a card costs at most one formula's budget beyond its quick ones.
 */
class Pictures {
	readonly attachments: CardAttachment[] = [];
	private readonly seen = new Set<string>();
	private readonly failed = new Set<string>();
	private tries = 0;
	private stopped = false;
	constructor(private readonly math: MathRenderer) {}

	get full(): boolean {
		return this.stopped || this.tries >= MATH_MAX_PICTURES || this.attachments.length >= MATH_MAX_PICTURES;
	}

	async add(tex: string, display: boolean, alt: string, name: string): Promise<boolean> {
		const key = `${display ? "D" : "I"}${tex}`;
		if (this.seen.has(key)) return true;
		if (this.failed.has(key) || this.full) return false;
		this.tries++;
		const result = await this.math.render(tex, display);
		if (!result.ok) {
			this.failed.add(key);
			if (STOPPED.has(result.code)) this.stopped = true;
			return false;
		}
		this.seen.add(key);
		this.attachments.push({
			kind: "image",
			filename: `${name}-${this.attachments.length + 1}.png`,
			data: result.png,
			alt,
			width: result.width,
			height: result.height,
		});
		return true;
	}

	/** A markdown field: its formulas drawn, the text with code spans. */
	async text(text: string | undefined): Promise<string | undefined> {
		if (text === undefined) return undefined;
		const spans = findMath(text);
		for (const span of spans) if (worthPicture(span)) await this.add(span.tex, span.display, span.tex, "math");
		return mathAsCode(text, spans);
	}
}

/** Escapes plain text for MathJax's \text{} (specials leave the text group and are drawn as symbols). */
function textTex(text: string): string {
	const specials: Record<string, string> = {
		"\\": "\\backslash ",
		"{": "\\{",
		"}": "\\}",
		$: "\\$",
		"%": "\\%",
		"&": "\\&",
		"#": "\\#",
		_: "\\_",
		"^": "\\hat{}",
		"~": "\\sim ",
	};
	let out = "";
	let run = "";
	const flush = () => {
		if (run !== "") out += `\\text{${run}}`;
		run = "";
	};
	for (const ch of text.replace(/\s+/g, " ")) {
		const special = specials[ch];
		if (special === undefined) run += ch;
		else {
			flush();
			out += special;
		}
	}
	flush();
	return out;
}

/** A choice as one TeX line: its text in \text{}, its formulas as math. */
function choiceTex(choice: CardChoice): string {
	const text = choice.text.trim().slice(0, CHOICE_MAX_CHARS);
	const spans = findMath(text);
	let out = `\\textbf{${choice.letter}.}\\quad `;
	let last = 0;
	for (const span of spans) {
		out += `${textTex(text.slice(last, span.start))}{${span.display ? "\\displaystyle " : ""}${span.tex}}`;
		last = span.end;
	}
	return out + textTex(text.slice(last));
}

async function questionCard(card: QuestionCard, pictures: Pictures): Promise<QuestionCard> {
	const withMath = card.choices.some((c) => findMath(c.text).length > 0);
	let pictured = false;
	if (withMath) {
		const tex = `\\begin{array}{l}${card.choices.map(choiceTex).join("\\\\[6pt]")}\\end{array}`;
		const alt = card.choices.map((c) => `${c.letter}. ${c.text.trim()}`).join("\n");
		pictured = await pictures.add(tex, true, alt, "choices");
	}
	const question = (await pictures.text(card.question)) ?? "";
	const lead = await pictures.text(card.lead);
	const choices = card.choices.map((c) => ({ ...c, text: mathAsCode(c.text) }));
	return {
		...card,
		question,
		choices,
		...(lead !== undefined ? { lead } : {}),
		...(pictured ? { choicesPictured: true } : {}),
	};
}

/** Draws nothing: every formula stays a code span (a card posted as text). */
const NO_PICTURES: MathRenderer = {
	render: async () => ({ ok: false, code: "engine", error: "posted as text" }),
	stats: () => ({ renders: 0, cacheHits: 0, failures: 0, knownFailures: 0, workers: 0 }),
	close: async () => undefined,
};

/**
 * The card with its formulas drawn as attachments and kept as code spans in its text; without a
 * renderer, the formulas as code spans only (no pictures). Never throws.
 */
export async function prepareCard(card: Card, math: MathRenderer = NO_PICTURES): Promise<Card> {
	const pictures = new Pictures(math);
	let next: Card;
	switch (card.kind) {
		case "question":
			next = await questionCard(card, pictures);
			break;
		case "explain": {
			const lead = await pictures.text(card.lead);
			next = { ...card, body: (await pictures.text(card.body)) ?? "", ...(lead !== undefined ? { lead } : {}) };
			break;
		}
		case "text":
			next = { ...card, text: (await pictures.text(card.text)) ?? "" };
			break;
		case "assessment": {
			const summary = await pictures.text(card.summary);
			const strands = [];
			for (const s of card.strands) strands.push({ ...s, assessment: (await pictures.text(s.assessment)) ?? "" });
			next = { ...card, strands, ...(summary !== undefined ? { summary } : {}) };
			break;
		}
		case "answered":
			// An edit of a posted card: its pictures stay on the message; the text shows the TeX as code.
			return answeredAsCode(card);
	}
	if (pictures.attachments.length === 0) return next;
	return { ...next, attachments: [...(("attachments" in card && card.attachments) || []), ...pictures.attachments] };
}

function answeredAsCode(card: Extract<Card, { kind: "answered" }>): Card {
	const code = (t: string | undefined) => (t === undefined ? undefined : mathAsCode(t));
	const question = code(card.question);
	const lead = code(card.lead);
	return {
		...card,
		answer: mathAsCode(card.answer),
		choices: card.choices.map((c) => ({ ...c, text: mathAsCode(c.text) })),
		...(question !== undefined ? { question } : {}),
		...(lead !== undefined ? { lead } : {}),
		...(card.reveal !== undefined
			? {
					reveal: {
						...card.reveal,
						correctAnswer: mathAsCode(card.reveal.correctAnswer),
						...(card.reveal.explanation !== undefined ? { explanation: mathAsCode(card.reveal.explanation) } : {}),
					},
				}
			: {}),
	};
}
