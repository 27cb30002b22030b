/**
 * A plain-text or Markdown file → its text in parts, the way extract-pdf.ts gives a PDF's pages. A
 * text file has no pages, so a "part" stands in for one: about PART_CHARS characters, split where a
 * paragraph ends (a blank line), so a part is what a citation points at ("part 3"). Markdown's `#`
 * lines are its headings (`#` a chapter, `##` and deeper a section). The bytes decide what the file
 * is: valid UTF-8 with no NUL byte is text, whatever its name or declared type says. One linear pass;
 * bounded by the same limits as a PDF (bytes, parts as pages, characters).
 */

import {
	looksLikeInstructions,
	type MaterialDocument,
	type MaterialHeading,
	type MaterialPage,
} from "./extract-pdf.ts";
import { DEFAULT_MATERIAL_LIMITS, type MaterialLimits, type MaterialRefusal, type MaterialWarning } from "./limits.ts";

/** Characters a part holds, about (a paragraph longer than this is split at a line, then at a space). */
export const PART_CHARS = 3000;

/** True when `bytes` read as text: valid UTF-8 (a BOM allowed) without a NUL byte (binary files have them). */
export function looksLikeText(bytes: Uint8Array): boolean {
	if (bytes.includes(0)) return false;
	try {
		new TextDecoder("utf-8", { fatal: true }).decode(bytes);
		return true;
	} catch {
		return false;
	}
}

/** True when the name says Markdown (`.md`, `.markdown`): its `#` lines are then headings. */
export const isMarkdownName = (name: string): boolean => /\.(?:md|markdown|mdown|mkd)$/i.test(name.trim());

const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** A refusal of a text file, in the words of its kind (limits.ts words a PDF's). */
function refuse(code: MaterialRefusal["code"], message: string): MaterialRefusal {
	return { ok: false, code, message };
}

/** A Markdown heading line: its level and its words (emphasis marks and a closing `#` run dropped). */
function headingOf(line: string): { level: 1 | 2; title: string } | undefined {
	// The marks by a pattern, the rest by string operations (one pattern for both backtracked on spaces).
	const marks = /^ {0,3}(#{1,6})[ \t]/.exec(line);
	if (!marks?.[1]) return undefined;
	const words = trimTrailing(trimTrailing(line.slice(marks[0].length), " \t"), "#");
	const title = words.replace(/[*_`]/g, "").replace(/\s+/g, " ").trim();
	if (!title || title.length > 120 || !/\p{L}{2}/u.test(title)) return undefined;
	return { level: marks[1].length === 1 ? 1 : 2, title };
}

/** `text` without the run of `chars` at its end (a loop: `/[ \t]+$/` backtracks on a long run not at the end). */
function trimTrailing(text: string, chars: string): string {
	let end = text.length;
	while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
	return text.slice(0, end);
}

/** `text` cut into pieces of at most `max` characters, at a line end, else a space, else anywhere. */
function splitLong(text: string, max: number): string[] {
	const out: string[] = [];
	let rest = text;
	while (rest.length > max) {
		const window = rest.slice(0, max);
		let cut = window.lastIndexOf("\n");
		if (cut < max / 2) cut = window.lastIndexOf(" ");
		if (cut < max / 2) cut = max;
		out.push(rest.slice(0, cut).trim());
		rest = rest.slice(cut).trim();
	}
	if (rest !== "") out.push(rest);
	return out;
}

/** Read a text or Markdown file into parts with its headings; a refusal when it may not be read. Never throws. */
export function extractText(
	bytes: Uint8Array,
	options: { name?: string; limits?: Partial<MaterialLimits> } = {},
): MaterialDocument | MaterialRefusal {
	const limits: MaterialLimits = { ...DEFAULT_MATERIAL_LIMITS, ...options.limits };
	const name =
		(options.name ?? "material.txt")
			.replace(/[\r\n`*_~|<>[\]]/g, " ")
			.trim()
			.slice(0, 200) || "material.txt";
	if (bytes.byteLength > limits.maxBytes)
		return refuse(
			"too-big",
			`The file is larger than ${mib(limits.maxBytes)}. Attach a shorter excerpt, such as one chapter.`,
		);
	if (!looksLikeText(bytes))
		return refuse(
			"not-a-pdf",
			"The material is neither a PDF nor a text or Markdown file (UTF-8). Attach a PDF, a .txt or a .md file.",
		);
	const markdown = isMarkdownName(name);
	let text = new TextDecoder("utf-8").decode(bytes).replace(/\r\n?/g, "\n");
	// HTML is text too, but its tags would be read as words (and cited): refused until it is read as HTML.
	if (/^\s*<(?:!doctype\s+html|html[\s>])/i.test(text.slice(0, 1024)))
		return refuse("not-a-pdf", "HTML pages are not read yet. Attach a PDF, a .txt or a .md file.");
	const warnings: MaterialWarning[] = [];
	if (text.length > limits.maxChars) {
		text = text.slice(0, limits.maxChars);
		warnings.push({
			code: "chars-cut",
			message: `The file holds more than ${limits.maxChars.toLocaleString("en")} characters; only the first ${limits.maxChars.toLocaleString("en")} are used.`,
		});
	}
	// Paragraphs (blank-line separated); a Markdown heading is a paragraph of its own, so a part may start at it.
	const paragraphs: Array<{ text: string; heading?: { level: 1 | 2; title: string } }> = [];
	for (const block of text.split(/\n[ \t]*\n/)) {
		let lines: string[] = [];
		const flush = () => {
			const body = lines.join("\n").trim();
			if (body !== "") for (const piece of splitLong(body, PART_CHARS)) paragraphs.push({ text: piece });
			lines = [];
		};
		for (const raw of block.split("\n")) {
			const line = trimTrailing(raw, " \t");
			const heading = markdown ? headingOf(line) : undefined;
			if (heading) {
				flush();
				paragraphs.push({ text: heading.title, heading });
			} else lines.push(line);
		}
		flush();
	}
	if (paragraphs.length === 0) return refuse("no-text", "The file holds no text.");
	// Parts: paragraphs gathered up to PART_CHARS; a chapter heading starts a new part once the current one is a third full.
	const parts: Array<typeof paragraphs> = [];
	let current: typeof paragraphs = [];
	let size = 0;
	for (const p of paragraphs) {
		const full = size > 0 && size + p.text.length > PART_CHARS;
		const chapter = p.heading?.level === 1 && size > PART_CHARS / 3;
		if (full || chapter) {
			parts.push(current);
			current = [];
			size = 0;
		}
		current.push(p);
		size += p.text.length + 2;
	}
	if (current.length > 0) parts.push(current);
	if (parts.length > limits.maxPages)
		return refuse(
			"too-many-pages",
			`The file has ${parts.length.toLocaleString("en")} parts of about ${PART_CHARS.toLocaleString("en")} characters; at most ${limits.maxPages} are read. Attach the chapter you are studying.`,
		);
	const pages: MaterialPage[] = [];
	const outline: MaterialHeading[] = [];
	const flagged: number[] = [];
	parts.forEach((part, i) => {
		const number = i + 1;
		const headings = part.flatMap((p) => (p.heading ? [p.heading.title] : []));
		for (const p of part) if (p.heading) outline.push({ title: p.heading.title, page: number, level: p.heading.level });
		const body = part.map((p) => p.text).join("\n");
		if (looksLikeInstructions(body)) flagged.push(number);
		pages.push({ number, text: body, headings });
	});
	if (flagged.length > 0)
		warnings.push({
			code: "instructions-quoted",
			pages: flagged,
			message: `Part${flagged.length > 1 ? "s" : ""} ${flagged.join(", ")} of the file hold${flagged.length > 1 ? "" : "s"} text addressed to an AI ("ignore previous instructions" or the like). The tutor reads it as part of the document, quoted, never as instructions.`,
		});
	return { ok: true, name, pages, outline, warnings, unit: "part" };
}
