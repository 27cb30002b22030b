/**
 * Markdown tables -> aligned monospace code blocks (neither Discord nor
 * Slack renders tables; both render code blocks). Cells are padded to their
 * column's width; a cell wider than TABLE_CELL_MAX_CHARS is cut with an
 * ellipsis, and a table wider than TABLE_MAX_WIDTH cuts its widest columns
 * first. One pass over the lines; tables inside code fences are left alone.
 */

/** Widest cell shown (characters). */
export const TABLE_CELL_MAX_CHARS = 24;
/** Widest table row shown (characters). */
export const TABLE_MAX_WIDTH = 72;
/** Most rows shown of one table (the rest become "…"). */
export const TABLE_MAX_ROWS = 60;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const DELIMITER_CELL = /^:?-+:?$/;

/**
 * A delimiter row (`|---|:--:|`): cells of dashes with optional colons, split at pipes, outer pipes optional.
 * A scan, not one regex: `\s*` on both sides of each pipe made the regex cubic on a line of tabs (4,000 took
 * seconds). `trim` drops what `\s` matches.
 */
function isDelimiter(line: string): boolean {
	let body = line.trim();
	if (body.startsWith("|")) body = body.slice(1);
	if (body.endsWith("|")) body = body.slice(0, -1);
	return body.split("|").every((cell) => DELIMITER_CELL.test(cell.trim()));
}

/** Cells of a table row: split at unescaped pipes, outer pipes dropped, inline markup kept as text. */
function cells(line: string): string[] {
	let body = line.trim();
	if (body.startsWith("|")) body = body.slice(1);
	if (body.endsWith("|") && !body.endsWith("\\|")) body = body.slice(0, -1);
	const out: string[] = [];
	let cell = "";
	for (let i = 0; i < body.length; i++) {
		const ch = body[i];
		if (ch === "\\" && body[i + 1] === "|") {
			cell += "|";
			i++;
		} else if (ch === "|") {
			out.push(cell);
			cell = "";
		} else cell += ch;
	}
	out.push(cell);
	return out.map((c) =>
		c
			.trim()
			.replace(/\*\*(.+?)\*\*/g, "$1")
			.replace(/`([^`]*)`/g, "$1"),
	);
}

const width = (s: string): number => [...s].length;

function cut(text: string, max: number): string {
	const chars = [...text];
	return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}

function pad(text: string, size: number, align: "left" | "right" | "center"): string {
	const room = size - width(text);
	if (room <= 0) return text;
	if (align === "right") return " ".repeat(room) + text;
	if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
	return text + " ".repeat(room);
}

/** One table (header, delimiter, rows) as the lines of an aligned code block. */
function renderTable(lines: readonly string[]): string[] {
	const header = cells(lines[0] ?? "");
	const aligns = cells(lines[1] ?? "").map((d) =>
		d.startsWith(":") && d.endsWith(":") ? "center" : d.endsWith(":") ? "right" : "left",
	) as Array<"left" | "right" | "center">;
	const body = lines.slice(2, 2 + TABLE_MAX_ROWS).map(cells);
	const columns = header.length;
	const rows = [header, ...body].map((r) =>
		Array.from({ length: columns }, (_, i) => cut(r[i] ?? "", TABLE_CELL_MAX_CHARS)),
	);
	const widths = Array.from({ length: columns }, (_, i) => Math.max(1, ...rows.map((r) => width(r[i] ?? ""))));
	// Too wide: shave the widest column until the row fits (each column keeps at least 3 characters).
	const total = () => widths.reduce((a, b) => a + b, 0) + 3 * (columns - 1);
	while (total() > TABLE_MAX_WIDTH) {
		const widest = widths.indexOf(Math.max(...widths));
		if ((widths[widest] ?? 0) <= 3) break;
		widths[widest] = (widths[widest] ?? 0) - 1;
	}
	const line = (r: readonly string[]) =>
		r
			.map((c, i) => pad(cut(c, widths[i] ?? 1), widths[i] ?? 1, aligns[i] ?? "left"))
			.join(" | ")
			.trimEnd();
	const out = [line(rows[0] ?? []), widths.map((w) => "-".repeat(w)).join("-+-"), ...rows.slice(1).map(line)];
	if (lines.length - 2 > TABLE_MAX_ROWS) out.push(`… ${lines.length - 2 - TABLE_MAX_ROWS} more rows`);
	return out;
}

const isRow = (line: string): boolean => line.includes("|") && line.trim() !== "";

/** Markdown with every table (outside code fences) turned into an aligned code block; other text unchanged. */
export function tablesToCode(markdown: string): string {
	if (!markdown.includes("|")) return markdown;
	const lines = markdown.split("\n");
	const out: string[] = [];
	let fence: string | undefined;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const open = FENCE.exec(line);
		if (fence !== undefined) {
			if (line.trim().startsWith(fence)) fence = undefined;
			out.push(line);
			continue;
		}
		if (open !== null) {
			fence = open[1];
			out.push(line);
			continue;
		}
		const next = lines[i + 1] ?? "";
		if (isRow(line) && isDelimiter(next) && next.includes("-") && (line.includes("|") || next.includes("|"))) {
			let j = i + 2;
			while (j < lines.length && isRow(lines[j] ?? "") && !FENCE.test(lines[j] ?? "")) j++;
			out.push("```", ...renderTable(lines.slice(i, j)), "```");
			i = j - 1;
			continue;
		}
		out.push(line);
	}
	return out.join("\n");
}
