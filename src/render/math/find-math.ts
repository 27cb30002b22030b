/**
 * Finds TeX in model markdown: `$$…$$` and `\[…\]` (display), `$…$` and
 * `\(…\)` (inline), never inside code fences or code spans. A `$` opens
 * inline math only with a non-space after it and closes only with a
 * non-space before it and no digit after it (pandoc's rule), holds no other `$`
 * and stays on one line, so
 * "$5 and $10" stays prices. One pass: every closer search is memoized, so
 * the scan is linear in the text.
 */

/** One formula found in text. */
export interface MathSpan {
	/** Offset of the opening delimiter. */
	start: number;
	/** Offset just past the closing delimiter. */
	end: number;
	/** The TeX between the delimiters, trimmed. */
	tex: string;
	display: boolean;
}

/** Longest formula we typeset (longer ones stay as text). */
export const MATH_MAX_CHARS = 2000;
/** Most formulas looked at in one text. */
export const MATH_MAX_SPANS = 50;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Offsets of every `closer` at or after `from`, memoized: each search moves forward only once. */
function finder(text: string): (closer: string, from: number) => number {
	const last = new Map<string, { from: number; at: number }>();
	return (closer, from) => {
		const memo = last.get(closer);
		if (memo !== undefined && memo.from <= from && (memo.at === -1 || memo.at >= from)) return memo.at;
		const at = text.indexOf(closer, from);
		last.set(closer, { from, at });
		return at;
	};
}

/** Ranges of fenced code blocks ([start, end) offsets), found line by line. */
function fencedRanges(text: string): Array<[number, number]> {
	const out: Array<[number, number]> = [];
	let open: { marker: string; start: number } | undefined;
	let pos = 0;
	while (pos <= text.length) {
		const nl = text.indexOf("\n", pos);
		const end = nl === -1 ? text.length : nl;
		const line = text.slice(pos, end);
		const m = FENCE.exec(line);
		if (open === undefined && m !== null) open = { marker: m[1] ?? "```", start: pos };
		else if (open !== undefined && line.trim().startsWith(open.marker)) {
			out.push([open.start, end]);
			open = undefined;
		}
		if (nl === -1) break;
		pos = nl + 1;
	}
	if (open !== undefined) out.push([open.start, text.length]);
	return out;
}

const isSpace = (ch: string | undefined): boolean => ch === undefined || /\s/.test(ch);

/** The next unescaped `$` at or after `from` on the same line (-1: none); memoized over the scanned stretch. */
function inlineCloser(text: string): (from: number) => number {
	let scannedFrom = 0;
	let scannedTo = -1;
	let result = -1;
	return (from) => {
		if (from >= scannedFrom && from <= scannedTo) return result;
		let j = from;
		result = -1;
		for (; j < text.length; j++) {
			const ch = text[j];
			if (ch === "\n") break;
			if (ch !== "$" || text[j - 1] === "\\") continue;
			result = j;
			break;
		}
		scannedFrom = from;
		scannedTo = j;
		return result;
	};
}

/** The formulas in `text`, in order (at most MATH_MAX_SPANS; none inside code). Never throws. */
export function findMath(text: string): MathSpan[] {
	const spans: MathSpan[] = [];
	const fences = fencedRanges(text);
	const find = finder(text);
	const inline = inlineCloser(text);
	let fence = 0;
	let i = 0;
	const push = (start: number, innerStart: number, innerEnd: number, end: number, display: boolean): boolean => {
		const tex = text.slice(innerStart, innerEnd).trim();
		if (tex === "" || tex.length > MATH_MAX_CHARS) return false;
		spans.push({ start, end, tex, display });
		return true;
	};
	while (i < text.length && spans.length < MATH_MAX_SPANS) {
		const range = fences[fence];
		if (range !== undefined && i >= range[0]) {
			i = Math.max(i, range[1]);
			fence++;
			continue;
		}
		const ch = text[i];
		if (ch === "`") {
			let n = 1;
			while (text[i + n] === "`") n++;
			const close = find("`".repeat(n), i + n);
			i = close === -1 || (range !== undefined && close >= range[0]) ? i + n : close + n;
			continue;
		}
		if (ch === "\\") {
			const next = text[i + 1];
			if (next === "[" || next === "(") {
				const closer = next === "[" ? "\\]" : "\\)";
				const at = find(closer, i + 2);
				if (at !== -1 && (range === undefined || at < range[0]) && push(i, i + 2, at, at + 2, next === "[")) i = at + 2;
				else i += 2;
				continue;
			}
			i += 2; // an escaped character (\$ is a dollar)
			continue;
		}
		if (ch === "$") {
			if (text[i + 1] === "$") {
				const at = find("$$", i + 2);
				if (at !== -1 && (range === undefined || at < range[0]) && push(i, i + 2, at, at + 2, true)) i = at + 2;
				else i += 2;
				continue;
			}
			if (!isSpace(text[i + 1])) {
				// Inline math holds no `$`: the next one closes it or nothing does ("$5 and $10" is two prices).
				const at = inline(i + 2);
				const closes = at !== -1 && !isSpace(text[at - 1]) && text[at + 1] !== "$" && !/[0-9]/.test(text[at + 1] ?? "");
				if (closes && push(i, i + 1, at, at + 1, false)) {
					i = at + 1;
					continue;
				}
			}
		}
		i++;
	}
	return spans;
}
