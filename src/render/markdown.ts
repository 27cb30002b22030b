/**
 * Markdown -> Slack mrkdwn (slackify-markdown), made safe for model-authored
 * text: slackify passes raw `<...>` through, and in mrkdwn `<!channel>`,
 * `<@U123>` or `<https://x|y>` are live syntax. We keep the links slackify
 * itself produced and escape every other `&`, `<`, `>`.
 *
 * Bounded: slackify's cost grows faster than its input (4,000 characters of
 * nested quotes took ~90 ms, 8,000 `[` ~570 ms, 8,000 `> ` overflowed the
 * stack; 100 KB of prose ~2 s), so it only ever sees chunks of at most
 * CHUNK_MAX_CHARS, cut at blank lines outside code fences, and at most
 * MRKDWN_CONVERT_MAX_CHARS per call. Text past that budget is kept as
 * escaped plain text: nothing is lost, nothing freezes.
 */

import { createRequire } from "node:module";

/**
 * slackify-markdown (and the remark and micromark parsers under it: about 0.1 s of CPU to load) on first use:
 * only a process that posts to Slack needs it, and the terminal and Discord start without it.
 */
const load = createRequire(import.meta.url);
let slackify: ((markdown: string) => string) | undefined;
const slackifyMarkdown = (markdown: string): string => {
	slackify ??= load("slackify-markdown") as (markdown: string) => string;
	return slackify(markdown);
};

/** Most markdown converted per call (above the 1,500-character question limit); the rest is shown as escaped plain text. */
export const MRKDWN_CONVERT_MAX_CHARS = 2_000;
/** Largest piece slackify sees at once: small enough that its superlinear cost stays a few milliseconds. */
const CHUNK_MAX_CHARS = 1_000;
/** Deepest quote/list nesting converted: slackify re-indents every level, so `1. 1. 1. …` costs depth × length. */
const MAX_NESTING = 16;
/** A fence line: up to 3 spaces, then 3+ backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

// Links slackify emits: <url|text> or <url>, http(s)/mailto only.
const SLACK_LINK = /<(?:https?:\/\/|mailto:)[^\s<>|]+(?:\|[^<>\n]*)?>/g;

/** Escapes text for a Slack mrkdwn field (no formatting is interpreted as a mention or link). */
export function escapeMrkdwn(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes `&<>` outside slackify's own links, keeping existing `&amp;`/`&lt;`/`&gt;` and line-start quotes. */
function escapeOutsideLinks(mrkdwn: string): string {
	let out = "";
	let last = 0;
	const escapeText = (s: string): string =>
		s
			.replace(/&(?!amp;|lt;|gt;)/g, "&amp;")
			.replace(/</g, "&lt;")
			// `> ` at a line start is a mrkdwn quote; every other `>` is text.
			.replace(/>/g, (gt, offset: number, all: string) =>
				(offset === 0 || all[offset - 1] === "\n") && all[offset + 1] === " " ? gt : "&gt;",
			);
	for (const m of mrkdwn.matchAll(SLACK_LINK)) {
		const index = m.index ?? 0;
		out += escapeText(mrkdwn.slice(last, index)) + m[0];
		last = index + m[0].length;
	}
	return out + escapeText(mrkdwn.slice(last));
}

/** A piece of the input: its text, what joined it to the previous piece, and whether slackify may see it. */
interface Piece {
	text: string;
	joiner: string;
	convert: boolean;
}

/** A run of lines: prose between blank lines, or one fenced code block (open to the end when never closed). */
interface Block {
	lines: string[];
	/** "\n\n" after a blank line, "\n" when it follows the previous block directly (a fence under a paragraph). */
	joiner: string;
	fence: boolean;
}

/** The input as blocks; blank lines inside a fence belong to the fence. */
function blocks(markdown: string): Block[] {
	const out: Block[] = [];
	let current: Block | undefined;
	let blank = true; // a blank line (or the start) came since the last block
	let fence: string | undefined; // the opening marker while inside a fence
	const start = (isFence: boolean): Block => {
		const block = { lines: [], joiner: blank ? "\n\n" : "\n", fence: isFence };
		out.push(block);
		blank = false;
		return block;
	};
	for (const line of markdown.split("\n")) {
		const marker = FENCE.exec(line)?.[1];
		if (fence !== undefined) {
			current?.lines.push(line);
			// A closing fence: the same character, at least as long, nothing after it.
			if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
				fence = undefined;
				current = undefined;
			}
		} else if (marker !== undefined) {
			fence = marker;
			current = start(true);
			current.lines.push(line);
		} else if (line.trim() === "") {
			blank = true;
			current = undefined;
		} else {
			current ??= start(false);
			current.lines.push(line);
		}
	}
	return out;
}

/** The quote/list nesting a line opens with: `>` and list markers count one level each, two spaces count one. */
function nesting(line: string): number {
	let depth = 0;
	let spaces = 0;
	let i = 0;
	while (i < line.length && depth + Math.floor(spaces / 2) <= MAX_NESTING) {
		const c = line[i]!;
		if (c === " " || c === "\t") spaces += c === " " ? 1 : 4;
		else if (c === ">") depth++;
		else if ("-*+".includes(c) && (line[i + 1] === " " || line[i + 1] === undefined)) depth++;
		else if (c >= "0" && c <= "9") {
			let j = i;
			while (j < line.length && j - i < 9 && line[j]! >= "0" && line[j]! <= "9") j++;
			if (!(".)".includes(line[j] ?? "x") && (line[j + 1] === " " || line[j + 1] === undefined))) break;
			depth++;
			i = j;
		} else break;
		i++;
	}
	return depth + Math.floor(spaces / 2);
}

/** Pieces of at most CHUNK_MAX_CHARS: blocks packed together, a long prose block cut at lines, fences kept whole. */
function pieces(markdown: string): Piece[] {
	const out: Piece[] = [];
	const add = (text: string, joiner: string, convert: boolean): void => {
		const last = out.at(-1);
		// Packing small blocks keeps a list and its paragraphs in one slackify call where possible.
		if (last?.convert && convert && last.text.length + joiner.length + text.length <= CHUNK_MAX_CHARS)
			last.text += joiner + text;
		else out.push({ text, joiner, convert });
	};
	for (const block of blocks(markdown)) {
		const text = block.lines.join("\n");
		// A fence is code to slackify (linear in its length); cutting it would turn its second half into markdown.
		if (block.fence) {
			add(text, block.joiner, true);
			continue;
		}
		// No lesson nests quotes or lists 16 deep; such a block is shown plain rather than converted slowly.
		const shallow = block.lines.every((line) => nesting(line) <= MAX_NESTING);
		if (text.length <= CHUNK_MAX_CHARS || !shallow) {
			add(text, block.joiner, shallow);
			continue;
		}
		block.lines.forEach((line, i) => {
			// One line longer than a chunk (no breaks at all) is shown plain: slackify would take seconds on it.
			add(line, i === 0 ? block.joiner : "\n", line.length <= CHUNK_MAX_CHARS);
		});
	}
	return out;
}

/** One chunk through slackify, with our escaping. */
function convertChunk(markdown: string): string {
	let converted: string;
	try {
		converted = slackifyMarkdown(markdown);
	} catch {
		converted = escapeMrkdwn(markdown); // slackify should not throw, but a display path never crashes
	}
	return escapeOutsideLinks(converted.replace(/\\\n/g, "\n")).trim();
}

/** Converts markdown to Slack mrkdwn; mentions and raw HTML in the input become plain text. Bounded time, see above. */
export function markdownToMrkdwn(markdown: string): string {
	if (markdown.trim() === "") return "";
	if (markdown.length <= CHUNK_MAX_CHARS && markdown.split("\n").every((l) => nesting(l) <= MAX_NESTING))
		return convertChunk(markdown);
	let budget = MRKDWN_CONVERT_MAX_CHARS;
	let out = "";
	for (const piece of pieces(markdown.replace(/\r\n?/g, "\n"))) {
		const convert = piece.convert && piece.text.length <= budget;
		// Once past the budget everything after stays plain, so formatting does not flicker on and off.
		budget = convert ? budget - piece.text.length : 0;
		const text = convert ? convertChunk(piece.text) : escapeMrkdwn(piece.text).trim();
		if (text !== "") out += out === "" ? text : piece.joiner + text;
	}
	return out;
}
