/**
 * Cards (the platform-neutral model from src/render) as terminal text: light
 * markdown (bold, code, headings, lists) with ANSI styles when the output is
 * a terminal, plain text when it is a pipe or a file (scripts, tests).
 */

import { stripVTControlCharacters, styleText } from "node:util";
import { DEFAULT_LOCALE, LOCALES, type Locale, t } from "../../i18n/index.ts";
import {
	type AnsweredCard,
	type AssessmentCard,
	answerOutcome,
	type Card,
	displayName,
	type ExplainCard,
	type QuestionCard,
	type TextCard,
} from "../../render/index.ts";

/** The language of a card's own words. */
const loc = (card: { locale?: Locale }): Locale => card.locale ?? DEFAULT_LOCALE;
/** "Legend: " in every language (the outline's last line). */
const LEGEND_PREFIXES = LOCALES.map((l) => `${t(l, "plan.legend")}: `);

type StyleName = Parameters<typeof styleText>[0];

/** Styles text, or leaves it alone when colour is off. */
export type Styler = (style: StyleName, text: string) => string;

/** A Styler: ANSI when `color`, identity otherwise. */
export function createStyler(color: boolean): Styler {
	// The caller decides about colour (it knows which stream it writes to), so no stream check here.
	return (style, text) => (color ? styleText(style, text, { validateStream: false }) : text);
}

const RULE_WIDTH = 60;

/** Markdown-ish text for a terminal: **bold**, `code`, # headings; lists and paragraphs stay as written. */
export function formatMarkdown(text: string, s: Styler): string {
	return text
		.replace(/\r\n/g, "\n")
		.split("\n")
		.map((line) => {
			// `s`: "(.*)$" always reaches the end, so a stray \u2028 cannot make "\s+(.*)" backtrack.
			const heading = /^#{1,6}\s+(.*)$/s.exec(line);
			if (heading) return s("bold", heading[1] ?? "");
			return line
				.replace(/\*\*([^*\n]+)\*\*/g, (_, t: string) => s("bold", t))
				.replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, (_, pre: string, t: string) => pre + s("italic", t))
				.replace(/`([^`\n]+)`/g, (_, t: string) => s("cyan", t));
		})
		.join("\n");
}

/** How cards are printed. */
export interface FormatOptions {
	/** Print a question's lettered choices (false when an interactive picker shows them). Default true. */
	choices?: boolean;
}

/** A card as lines ready to print (questions include their lettered choices unless told otherwise). */
export function formatCard(card: Card, s: Styler, options: FormatOptions = {}): string {
	switch (card.kind) {
		case "text":
			return formatText(card, s);
		case "question":
			return formatQuestion(card, s, options.choices ?? true);
		case "explain":
			return formatExplain(card, s);
		case "assessment":
			return formatAssessment(card, s);
		case "answered":
			return formatAnswered(card, s);
	}
}

function formatText(card: TextCard, s: Styler): string {
	if (card.tone === "error") return s("red", `! ${card.text}`);
	if (card.tone === "notice") return s("yellow", card.text);
	return formatMarkdown(card.text, s);
}

/** The question with its choices lettered (A. …), as the learner sees it before answering. */
function formatQuestion(card: QuestionCard, s: Styler, withChoices = true): string {
	const lines = [s("magenta", s("bold", `? ${card.heading}`))];
	if (card.framing) lines.push(s("dim", card.framing));
	lines.push(formatMarkdown(card.question, s));
	if (withChoices || card.struggle?.state === "missed")
		for (const choice of card.choices)
			lines.push(`  ${s("bold", `${choice.letter}.`)} ${formatMarkdown(choice.text, s)}`);
	// A missed check: the typed commands stand in for its buttons (Try again, Hint, Show answer).
	if (card.struggle?.state === "missed") lines.push(s("dim", t(loc(card), "play.missedHelp")));
	return lines.join("\n");
}

function formatExplain(card: ExplainCard, s: Styler): string {
	const recap = t(loc(card), "card.recap");
	// A recap's own title may repeat the heading ("Recap: …", "Zusammenfassung"): said once.
	const own = card.title?.replace(/^recap:\s*/i, "").trim();
	const lead = `${recap.toLowerCase()}:`;
	const rest =
		!own || own.toLowerCase() === recap.toLowerCase()
			? ""
			: own.toLowerCase().startsWith(lead)
				? own.slice(lead.length).trim()
				: own;
	const title = card.role === "recap" ? `${recap}${rest ? `: ${rest}` : ""}` : card.title;
	const lines: string[] = [];
	if (title) lines.push(s("bold", title), s("dim", "─".repeat(Math.min(RULE_WIDTH, Math.max(3, title.length)))));
	lines.push(formatMarkdown(card.body, s));
	return lines.join("\n");
}

function formatAssessment(card: AssessmentCard, s: Styler): string {
	const lines = [s("bold", t(loc(card), "play.assessment"))];
	for (const strand of card.strands) lines.push(`  • ${s("bold", strand.strand)}: ${strand.assessment}`);
	if (card.summary) lines.push(s("dim", card.summary));
	return lines.join("\n");
}

function formatAnswered(card: AnsweredCard, s: Styler): string {
	const locale = loc(card);
	if (card.skipped) return s("dim", t(locale, "play.skipped"));
	const lines: string[] = [];
	const chosen = card.chosenIndex !== undefined ? card.choices[card.chosenIndex] : undefined;
	const answer = chosen ? `${chosen.letter}. ${chosen.text}` : card.answer;
	const why = card.reason ? s("dim", ` (${card.reason})`) : "";
	const { outcome, how } = answerOutcome(card);
	if (card.checking) lines.push(s("dim", `→ ${t(locale, "play.checking", { answer })}`));
	else if (card.tie && card.tie.length > 0)
		lines.push(
			s("yellow", t(locale, "card.answeredTie", { who: displayName(card.by, locale), what: card.tie.join(" · ") })),
		);
	else if (outcome === "not-sure") lines.push(s("yellow", t(locale, "play.notSure", { how })));
	else if (outcome === "explain-again") lines.push(s("dim", t(locale, "play.explainAgain")));
	else if (outcome === "prediction") lines.push(s("cyan", t(locale, "play.prediction", { answer })));
	else if (outcome === "correct") lines.push(`${s("green", `✓ ${t(locale, "play.correct", { answer })}${how}`)}${why}`);
	else if (outcome === "shown") lines.push(s("yellow", t(locale, "play.shown", { how })));
	else if (outcome === "wrong") lines.push(`${s("red", `✗ ${t(locale, "play.wrong", { answer })}${how}`)}${why}`);
	else lines.push(`${s("dim", `→ ${answer}`)}${why}`);
	if (card.reveal && card.correct !== true) {
		const letter = card.reveal.correctIndex !== undefined ? `${card.choices[card.reveal.correctIndex]?.letter}. ` : "";
		lines.push(`  ${t(locale, "play.theAnswer", { answer: s("bold", `${letter}${card.reveal.correctAnswer}`) })}`);
	}
	if (card.reveal?.explanation) lines.push(`  ${s("dim", card.reveal.explanation)}`);
	return lines.join("\n");
}

/** Bullets and list markers whose text should hang under itself when a line wraps. */
const LIST_MARKER = /^(\s*(?:[•*-]\s+|[A-Z][.)]\s+|\d+[.)]\s+|[✓✗→?!]\s+)?)/;

/**
 * Word-wraps printed text to `width` columns (ANSI styles do not count):
 * continuation lines hang under a list item's text; lines inside ``` fences
 * or indented by 4+ spaces (code, a command to copy) and single words longer
 * than the width are left alone.
 */
export function wrapText(text: string, width: number): string {
	if (!Number.isFinite(width) || width < 20) return text;
	let fenced = false;
	return text
		.split("\n")
		.map((line) => {
			const visible = stripVTControlCharacters(line);
			if (/^\s*```/.test(visible)) {
				fenced = !fenced;
				return line;
			}
			if (fenced || visible.length <= width || /^ {4}/.test(visible)) return line;
			return wrapLine(line, visible, width);
		})
		.join("\n");
}

function wrapLine(line: string, visible: string, width: number): string {
	const indent = /^\s*/.exec(line)?.[0] ?? "";
	const hang = " ".repeat(Math.min((LIST_MARKER.exec(visible)?.[1] ?? indent).length, Math.floor(width / 2)));
	const out: string[] = [];
	let current = indent;
	let currentWidth = indent.length;
	for (const word of line.slice(indent.length).split(" ")) {
		const w = stripVTControlCharacters(word).length;
		const fresh = current === indent || current === hang;
		if (!fresh && currentWidth + 1 + w > width) {
			out.push(current);
			current = hang + word;
			currentWidth = hang.length + w;
		} else {
			current = fresh ? current + word : `${current} ${word}`;
			currentWidth += (fresh ? 0 : 1) + w;
		}
	}
	out.push(current);
	return out.join("\n");
}

/** Colours of the outline's marks: the same meaning as the picture's fills. */
const PLAN_MARK_STYLES: ReadonlyArray<[string, StyleName]> = [
	["▶", "yellow"],
	["✓", "green"],
	["~", "yellow"],
	["•", "gray"],
	["○", "gray"],
];

/** The plan outline (from render's planOutline) for a terminal: the caption bold, the marks coloured, the legend dim. */
export function formatPlanOutline(outline: string, s: Styler): string {
	const lines = outline.split("\n");
	return lines
		.map((line, i) => {
			if (i === 0) return s("bold", line);
			if (i === lines.length - 1 && LEGEND_PREFIXES.some((p) => line.startsWith(p))) return s("dim", line);
			const m = /^(\s*)(\S+)( .*)$/.exec(line);
			const style = PLAN_MARK_STYLES.find(([mark]) => mark === m?.[2])?.[1];
			return m && style ? `${m[1]}${s(style, m[2] ?? "")}${m[3]}` : line;
		})
		.join("\n");
}
