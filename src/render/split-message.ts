/**
 * Splits markdown (or Slack mrkdwn) into chunks of at most `limit` UTF-16
 * units. Prefers paragraph breaks, then line breaks, then sentence ends,
 * then spaces; never cuts inside a word (unless one word alone exceeds the
 * limit) and never inside a fenced code block: a block longer than the
 * limit is split by lines into separately fenced pieces. A fence left open
 * (models do that) is closed, so it cannot swallow the rest of a message.
 */

interface Unit {
	text: string;
	/** What joined this unit to the previous one in the source ("" at a hard cut). */
	joiner: string;
}

type Block =
	| { kind: "text"; text: string }
	| { kind: "code"; open: string; close: string; lines: string[]; closed: boolean };

// The marker run is taken whole ("(?!`)"): "(.*)$" failing on a \u2028 made it give back one mark at a time.
const FENCE = /^\s{0,3}(`{3,}(?!`)|~{3,}(?!~))(.*)$/;
/** Smallest limit that still fits a fenced line: "```\n" + one char + "\n```". */
export const MIN_SPLIT_LIMIT = 16;

/** Splits text into chunks within `limit` characters; blank text gives []. Throws RangeError for limit < 16. */
export function splitMessage(text: string, limit: number): string[] {
	if (!Number.isInteger(limit) || limit < MIN_SPLIT_LIMIT)
		throw new RangeError(`splitMessage limit must be an integer >= ${MIN_SPLIT_LIMIT}, got ${limit}`);
	const normalized = text.replace(/\r\n?/g, "\n").trim();
	if (normalized === "") return [];
	const parsed = blocks(normalized);
	const balanced = parsed.every((b) => b.kind === "text" || b.closed);
	if (normalized.length <= limit && balanced) return [normalized];
	const units: Unit[] = [];
	parsed.forEach((block, i) => {
		const joiner = i === 0 ? "" : "\n\n";
		if (block.kind === "code") units.push(...codeUnits(block, limit, joiner));
		else units.push(...proseUnits(block.text, limit, 0, joiner));
	});
	return pack(units, limit);
}

/** Paragraphs (split at blank lines) and fenced code blocks (an unclosed fence runs to the end). */
function blocks(text: string): Block[] {
	const out: Block[] = [];
	let prose: string[] = [];
	const flush = (): void => {
		for (const para of prose.join("\n").split(/\n[ \t]*\n/)) {
			// trimEnd, not /\s+$/g: that pattern retries at every space of a long run (quadratic; 50,000 spaces took 1.3 s).
			const trimmed = para.replace(/^\n+/, "").trimEnd();
			if (trimmed.trim() !== "") out.push({ kind: "text", text: trimmed });
		}
		prose = [];
	};
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const open = FENCE.exec(line);
		if (open === null) {
			prose.push(line);
			continue;
		}
		flush();
		const marker = open[1] ?? "```";
		const body: string[] = [];
		let j = i + 1;
		for (; j < lines.length; j++) {
			// Discord ends a block at the next fence even when it carries a language word: so do we.
			const candidate = (lines[j] ?? "").trim();
			if (candidate.startsWith(marker[0]!.repeat(marker.length))) break;
			body.push(lines[j] ?? "");
		}
		// A long info string would eat the room of every piece; keep the language word only.
		const info = (open[2] ?? "").trim().split(/\s+/)[0] ?? "";
		out.push({
			kind: "code",
			open: `${marker}${info.length <= 16 ? info : ""}`,
			close: marker,
			lines: body,
			closed: j < lines.length,
		});
		i = j;
	}
	flush();
	return out;
}

function codeUnits(block: Extract<Block, { kind: "code" }>, limit: number, joiner: string): Unit[] {
	let open = block.open;
	let close = block.close;
	if (open.length + close.length + 3 > limit) {
		open = "```";
		close = "```";
	}
	const whole = [open, ...block.lines, close].join("\n");
	if (whole.length <= limit) return [{ text: whole, joiner }];
	const room = limit - open.length - close.length - 2; // two newlines around the body
	const pieces: string[] = [];
	let current: string[] = [];
	let size = 0;
	const push = (): void => {
		if (current.length > 0) pieces.push([open, ...current, close].join("\n"));
		current = [];
		size = 0;
	};
	for (const line of block.lines) {
		for (const segment of line.length <= room ? [line] : hardCut(line, room)) {
			const added = current.length === 0 ? segment.length : segment.length + 1;
			if (size + added > room) push();
			size += current.length === 0 ? segment.length : segment.length + 1;
			current.push(segment);
		}
	}
	push();
	return pieces.map((text, i) => ({ text, joiner: i === 0 ? joiner : "\n" }));
}

/** Separators by preference: line breaks, sentence ends, spaces; level 3 is a hard cut. */
const SEPARATORS = [/\n/g, /(?<=[.!?…:;])[ \t]+(?=\S)/g, /[ \t]+/g];

function proseUnits(text: string, limit: number, level: number, joiner: string): Unit[] {
	if (text.length <= limit) return [{ text, joiner }];
	const separator = SEPARATORS[level];
	if (separator === undefined) return hardCut(text, limit).map((t, i) => ({ text: t, joiner: i === 0 ? joiner : "" }));
	const parts: Unit[] = [];
	let last = 0;
	let sep = joiner;
	for (const m of text.matchAll(separator)) {
		const index = m.index ?? 0;
		if (index > last) parts.push({ text: text.slice(last, index), joiner: sep });
		sep = /\n/.test(m[0]) ? "\n" : " ";
		last = index + m[0].length;
	}
	if (last < text.length) parts.push({ text: text.slice(last), joiner: sep });
	if (parts.length <= 1) return proseUnits(text, limit, level + 1, joiner);
	return parts.flatMap((p) => proseUnits(p.text, limit, level + 1, p.joiner));
}

/** Cuts at code point boundaries (never inside a surrogate pair). */
function hardCut(text: string, limit: number): string[] {
	const out: string[] = [];
	let current = "";
	for (const ch of text) {
		if (current.length + ch.length > limit) {
			out.push(current);
			current = "";
		}
		current += ch;
	}
	if (current !== "") out.push(current);
	return out;
}

/** Greedy packing: units join with their original separators while the chunk fits. */
function pack(units: readonly Unit[], limit: number): string[] {
	const chunks: string[] = [];
	let current = "";
	for (const unit of units) {
		const text = current === "" ? unit.text : `${current}${unit.joiner}${unit.text}`;
		if (text.length <= limit) current = text;
		else {
			if (current.trim() !== "") chunks.push(current.trim());
			current = unit.text;
		}
	}
	if (current.trim() !== "") chunks.push(current.trim());
	return chunks;
}
